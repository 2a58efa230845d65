"""The one exception a verifier raises: it names the check that failed."""


class VerificationError(Exception):
    def __init__(self, check: str, detail: str = "") -> None:
        super().__init__(f"{check}: {detail}" if detail else check)
        self.check = check
        self.detail = detail
