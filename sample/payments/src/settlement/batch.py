from settlement.service import SettlementService


def settle_all(payments: list[tuple[str, int]]) -> list[str]:
    service = SettlementService()
    return [service.settle(account, amount) for account, amount in payments]


def reconcile(service: SettlementService, failed: list[tuple[str, int]]) -> None:
    for account, amount in failed:
        service.retry(lambda: service.gateway.transfer(account, amount))
