"""The `chlo` dialect ("client HLO"): math functions, broadcasting binary ops and a few
structured ops. Each module declares one op family; every op is interpreted directly."""
