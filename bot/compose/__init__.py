"""compose-check: every launch a front end reads, composed with the repository's Hydra config.

A checker the engine's one check runs on a file's reading (checker), each launch composed once per way
through its branches and run of its sweeps (launches, readings), with the findings and the rule behind
them (findings); the judge that keeps the rules' fixes from breaking a launch that composed (judge).
"""
