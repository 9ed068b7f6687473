package com.acme.ledger;

public class SettlementListener {
    private final Ledger ledger;

    public SettlementListener(Ledger ledger) {
        this.ledger = ledger;
    }

    public void onSettled(String account, long amount) {
        ledger.record(account, amount);
    }

    static class Audit {
        void log(String line) {
            System.out.println(line);
        }
    }
}
