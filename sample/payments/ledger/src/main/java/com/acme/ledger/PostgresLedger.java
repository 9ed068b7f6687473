package com.acme.ledger;

public class PostgresLedger implements Ledger {
    @Override
    public void record(String account, long amount) {
        write(account, amount);
    }

    private void write(String account, long amount) {
    }
}
