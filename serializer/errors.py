"""Malformed input: the error names the field (JSON path or calldata offset) at fault."""


class MalformedProofError(ValueError):
    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem
