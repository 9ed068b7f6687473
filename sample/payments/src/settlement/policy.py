class RetryPolicy:
    """How often and how fast a failed settlement is retried."""

    def __init__(self, attempts: int = 3, base_delay: float = 0.5):
        self.attempts = attempts
        self.base_delay = base_delay

    def delay(self, attempt: int) -> float:
        return backoff(self.base_delay, attempt)

    def should_retry(self, attempt: int, error: Exception) -> bool:
        return attempt < self.attempts and is_transient(error)


def backoff(base: float, attempt: int) -> float:
    return base * 2**attempt


def is_transient(error: Exception) -> bool:
    return isinstance(error, (TimeoutError, ConnectionError))
