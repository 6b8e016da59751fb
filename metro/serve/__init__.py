"""`metro serve`: matches played in the browser, the server holding every state.

`limits.py` names every bound; `tokens.py` makes and checks seat tokens; `store.py` keeps
matches and their decisions in a database; `catalog.py` lists the games served; `requests.py`
reads and checks what clients send; `documents.py` builds what a seat may see; `board.py`
draws positions; `undo.py` says when a seat may take back its last decision; `service.py` is
the authority that runs matches; `app.py` wires the routes; `export.py` saves a match for
`metro play`, for the operator.
"""
