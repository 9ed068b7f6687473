import time

from settlement.gateway import BankGateway, SepaGateway
from settlement.policy import RetryPolicy


class SettlementService:
    def __init__(self, gateway: BankGateway | None = None, policy: RetryPolicy | None = None):
        self.gateway = gateway or SepaGateway()
        self.policy = policy or RetryPolicy()

    def settle(self, account: str, amount: int) -> str:
        return self.retry(lambda: self.gateway.transfer(account, amount))

    def retry(self, operation):
        attempt = 0
        while True:
            try:
                return operation()
            except Exception as error:
                if not self.policy.should_retry(attempt, error):
                    raise
                time.sleep(self.policy.delay(attempt))
                attempt += 1

    def hook(self, name: str):
        # Plugins register hooks by name: the target is only known at run time.
        return getattr(self, f"on_{name}")()
