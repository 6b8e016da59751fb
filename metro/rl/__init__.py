"""Games as reinforcement-learning environments (the rl extra): the game-agnostic `encoding`,
a PettingZoo AEC environment and an OpenSpiel game."""
