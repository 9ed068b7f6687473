from settlement.policy import RetryPolicy
from settlement.service import SettlementService


def test_retry_gives_up_after_attempts():
    service = SettlementService(policy=RetryPolicy(attempts=1, base_delay=0))
    calls = []

    def failing():
        calls.append(1)
        raise TimeoutError

    try:
        service.retry(failing)
    except TimeoutError:
        pass
    assert len(calls) == 2
