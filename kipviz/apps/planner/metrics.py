"""IN per topic from the JMX exporter's Prometheus text: ``BytesInPerSec`` per topic, per broker.

Kafka's ``BrokerTopicMetrics`` meter ``BytesInPerSec`` (tag ``topic``) counts what a broker
appends *as leader* (``ReplicaManager.appendToLocalLog``; replication fetches are not in it), so
a topic's IN is the sum over brokers. The Prometheus JMX exporter's usual Kafka rules export the
meter's count as a counter, ``kafka_server_brokertopicmetrics_bytesin_total{topic="..."}``: a
rate needs two scrapes with timestamps (the exposition format's optional milliseconds after the
value); its ``OneMinuteRate``, when exported, is a gauge
(``kafka_server_brokertopicmetrics_bytesin_oneminuterate``) that one scrape gives. The text is
parsed by ``prometheus_client.parser.text_string_to_metric_families``.

:func:`bytes_in_from_scrapes` takes one text per broker (each holding that broker's scrapes, in
any order) and returns ``{topic: bytes/s}`` summed over brokers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

__all__ = ["BYTES_IN_COUNTER", "BYTES_IN_GAUGE", "bytes_in_from_scrapes", "looks_like_scrape"]

BYTES_IN_COUNTER = "kafka_server_brokertopicmetrics_bytesin_total"
BYTES_IN_GAUGE = "kafka_server_brokertopicmetrics_bytesin_oneminuterate"


def looks_like_scrape(text: str) -> bool:
    """Whether ``text`` holds one of the two BytesIn series (else it is taken as JSON)."""
    return BYTES_IN_COUNTER in text or BYTES_IN_GAUGE in text


def _text(source: str | os.PathLike[str]) -> tuple[str, str]:
    """(name for errors, text): a path's contents, or the text itself."""
    if isinstance(source, str) and looks_like_scrape(source):
        return "scrape", source
    try:
        return os.fspath(source), Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"bytes_in_per_s scrape file {os.fspath(source)!r} cannot be read: "
                         f"{err}") from err


def _broker_rates(name: str, text: str) -> dict[str, float]:
    """One broker's ``{topic: bytes/s}`` from its scrapes (the gauge wins over the counter)."""
    from prometheus_client.parser import text_string_to_metric_families

    counts: dict[str, list[tuple[float, float]]] = {}
    gauge: dict[str, float] = {}
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                topic = sample.labels.get("topic")
                if topic is None:
                    continue  # the all-topics series
                if sample.name == BYTES_IN_GAUGE:
                    gauge[topic] = float(sample.value)
                elif sample.name == BYTES_IN_COUNTER:
                    if sample.timestamp is None:
                        raise ValueError(f"bytes_in_per_s scrape {name!r}: {BYTES_IN_COUNTER}"
                                         f"{{topic={topic!r}}} has no timestamp; a rate needs "
                                         f"two timestamped scrapes per broker (or the "
                                         f"{BYTES_IN_GAUGE} gauge)")
                    counts.setdefault(topic, []).append((float(sample.timestamp),
                                                         float(sample.value)))
    except ValueError as err:
        if str(err).startswith("bytes_in_per_s"):
            raise
        raise ValueError(f"bytes_in_per_s scrape {name!r} is not Prometheus text: {err}") from err
    rates = dict(gauge)
    for topic, points in counts.items():
        if topic in rates:
            continue
        points.sort()
        (t0, v0), (t1, v1) = points[0], points[-1]
        if t1 <= t0:
            raise ValueError(f"bytes_in_per_s scrape {name!r}: {BYTES_IN_COUNTER}"
                             f"{{topic={topic!r}}} must be scraped twice, at different times: "
                             f"{len(points)} sample(s) at {t0:g} s")
        if v1 < v0:
            raise ValueError(f"bytes_in_per_s scrape {name!r}: {BYTES_IN_COUNTER}"
                             f"{{topic={topic!r}}} must not decrease (a broker restart between "
                             f"the scrapes resets it): {v0:g} then {v1:g}")
        rates[topic] = (v1 - v0) / (t1 - t0)
    if not rates:
        raise ValueError(f"bytes_in_per_s scrape {name!r} must hold {BYTES_IN_COUNTER} or "
                         f"{BYTES_IN_GAUGE} with a topic label: none found")
    return rates


def bytes_in_from_scrapes(scrapes: Sequence[str | os.PathLike[str]]) -> dict[str, float]:
    """``{topic: bytes/s}`` summed over brokers, from one Prometheus text (or file) per broker,
    each with two timestamped scrapes of the counter or one of the ``OneMinuteRate`` gauge.

    >>> one = ('kafka_server_brokertopicmetrics_bytesin_total{topic="orders"} 0 1000\\n'
    ...        'kafka_server_brokertopicmetrics_bytesin_total{topic="orders"} 6e8 61000\\n')
    >>> bytes_in_from_scrapes([one, one])
    {'orders': 20000000.0}
    """
    if isinstance(scrapes, (str, os.PathLike)):
        scrapes = [scrapes]
    if not scrapes:
        raise ValueError("bytes_in_per_s must hold one scrape per broker: none given")
    total: dict[str, float] = {}
    for source in scrapes:
        for topic, rate in _broker_rates(*_text(source)).items():
            total[topic] = total.get(topic, 0.0) + rate
    return total
