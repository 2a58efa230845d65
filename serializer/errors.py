"""Malformed input: the error names the field (JSON path or calldata offset) at fault and,
for calldata, the check the Cairo reader reverts with for the same input."""


class MalformedProofError(ValueError):
    def __init__(self, field: str, problem: str, check: str = "") -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem
        self.check = check
