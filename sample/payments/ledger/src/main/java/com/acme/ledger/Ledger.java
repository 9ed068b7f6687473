package com.acme.ledger;

public interface Ledger {
    void record(String account, long amount);
}
