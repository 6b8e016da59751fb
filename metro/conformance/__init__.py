"""Other engines against this one: test vectors written and checked, engines over JSON lines.

`vectorgen` writes vectors (`vectors` reads and writes their files, `state_schema` the state's
JSON schema, `perft` counts positions); `conform` runs an engine through them by an `adapter`
(in this process, or a subprocess over `engine_pipe` speaking `jsonlines`).
"""
