"""Settlement: matching payments to obligations and retrying failed transfers."""
