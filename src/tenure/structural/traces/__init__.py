"""Observed edges from OpenTelemetry traces: OTLP in (files, OTLP/HTTP), spans mapped to symbols,
services and topics, linked parent to child, written as `trace` source edges of tier `observed`."""

SOURCE = "trace"  # the source name on every edge this package writes
