class BankGateway:
    def transfer(self, account: str, amount: int) -> str:
        raise NotImplementedError


class SepaGateway(BankGateway):
    def transfer(self, account: str, amount: int) -> str:
        return f"sepa:{account}:{amount}"


class SwiftGateway(BankGateway):
    def transfer(self, account: str, amount: int) -> str:
        return f"swift:{account}:{amount}"
