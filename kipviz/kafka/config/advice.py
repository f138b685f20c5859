"""Warnings for legal but risky Kafka settings: memory bounds, throttles, the request pool.

Each warning names the Kafka setting, the rule it breaks and the numbers, so a reader of
``kipviz run`` (or the tour's "your own config" dashboard) can act on it:

* **Consumer memory** above a given heap: the one answer of
  :func:`kipviz.kafka.consumer.memory.consumer_memory_bounds` for the Kafka version, in the lagging
  case (no consume rate is known here): one response per broker from Kafka 4.0 (KAFKA-17182),
  ``partitions * max.partition.fetch.bytes`` before (lessons 1 and 3 simulate both), first-batch
  exception included; with KIP-81's ``buffer.memory`` (as proposed; never shipped) the pool's
  own bound ``buffer.memory + largest response - 1`` when it is smaller.
* **A replication throttle too low for the move to finish** (KIP-73 Q&A 1 and 4 with the
  followers ``--throttle`` counts, :func:`kipviz.kafka.replication.planning.move_time_s`): the
  leader's quota also counts the R - 1 in-sync followers of a moving partition, so a leader rate at
  or below R x IN (a follower rate at or below IN) never finishes; above ``N - IN/R`` a broker has
  no room left for clients; ``replica.fetch.response.max.bytes`` above KIP-73 Q&A 5's figure.
* **Settings Kafka rejects**, such as ``queued.max.request.bytes`` below
  ``socket.request.max.bytes`` (``KafkaConfig.validateValues``, KIP-72) or ``buffer.memory``
  below ``fetch.max.bytes`` (KIP-81): :class:`~kipviz.kafka.config.settings.BrokerConfig` and
  :class:`~kipviz.kafka.config.settings.ConsumerConfig` refuse them, and :func:`load_config` turns
  the refusal into a warning (and the config without that setting) instead of an exception.

Each warning is a :class:`Note`: a ``str`` (the full text, as before) that also carries a
one-line ``headline`` and a ``rank``; :func:`config_warnings` lists the most important first
(settings Kafka rejects, then what never finishes or does not fit, then the rest), and the
dashboards show the headlines with the full text a click away.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping
from typing import TypeAlias, TypeVar

from kipviz.kafka.config.keys import KafkaConfigWarning, kafka_keys
from kipviz.kafka.config.properties import read_properties
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from kipviz.kafka.config.versions import NEWEST_KAFKA_VERSION
from kipviz.kafka.consumer.memory import config_memory_bounds
from kipviz.kafka.replication.planning import (
    max_replica_fetch_response_bytes,
    move_time_s,
    throttle_bounds,
)
from kipviz.kafka.units import MB, MiB, bytes_and_mib

__all__ = ["REJECTED", "RISKY", "UNSAFE", "ConfigSource", "Note", "config_warnings",
           "first_clause", "load_config"]


ConfigSource: TypeAlias = (ConsumerConfig | BrokerConfig | Mapping[str, object] | str
                           | os.PathLike[str])
"""A config object, a mapping of Kafka keys to values, or the path of a ``.properties`` file."""

ConfigT = TypeVar("ConfigT", ConsumerConfig, BrokerConfig)

# A setting that breaks a rule relating two settings; loading again without it keeps the rest.
_PAIR_RULES = {ConsumerConfig: ("buffer.memory", "unset (today's consumer, no pool)"),
               BrokerConfig: ("queued.max.request.bytes", "at Kafka's default -1 (no pool)")}
_THROTTLES = tuple((f"{side}.replication.throttled.rate",
                    f"{side}_replication_throttled_rate_bytes_per_s")
                   for side in ("leader", "follower"))


REJECTED, UNSAFE, RISKY = 0, 1, 2
"""Ranks of a :class:`Note`, most important first: a setting Kafka refuses (or a file it cannot
read); a cluster that breaks (memory above the heap, a move that never finishes); a risk."""


class Note(str):
    """A warning: the ``str`` is its full text; ``headline`` says it in one line, ``rank``
    (:data:`REJECTED`, :data:`UNSAFE`, :data:`RISKY`) how much it matters."""

    headline: str
    rank: int

    def __new__(cls, text: str, headline: str = "", rank: int = RISKY) -> Note:
        note = super().__new__(cls, text)
        note.headline = headline or text
        note.rank = rank
        return note


def _ranked(notes: list[Note]) -> list[Note]:
    """``notes``, most important first (a stable sort: equal ranks keep their order)."""
    return sorted(notes, key=lambda n: n.rank)


def _rate(r: float) -> str:
    return f"{r:,.0f} bytes/s ({r / MB:g} MB/s)"


def load_config(cls: type[ConfigT], source: ConfigSource | None, *,
                kafka_version: str | None = None) -> tuple[ConfigT | None, list[Note]]:
    """``cls`` read from ``source`` and the warnings met; never raises for bad settings.

    ``kafka_version`` ("MAJOR.MINOR", see :mod:`kipviz.kafka.config.keys`) checks keys against that
    Kafka version's list; None accepts keys of any version from 0.10.1 on.

    ``None`` gives ``(None, [])``. A config object is returned as it is. A file or mapping that
    :meth:`~kipviz.kafka.config.settings.ConsumerConfig.from_properties` rejects gives a warning
    with its error text; when the rejected rule relates two settings (``queued.max.request.bytes``
    >= ``socket.request.max.bytes``, ``buffer.memory`` >= ``fetch.max.bytes``), the config is read
    again without the offending one (Kafka's default is used) so that the rest still counts.
    Otherwise the config is ``None``. Real Kafka keys kipviz does not model are not warned about;
    keys Kafka does not define are (Kafka ignores them: the Kafka default is used). A file that
    cannot be read (missing, a directory, a malformed ``\\uXXXX`` escape) is a warning too.
    """
    if kafka_version is not None:
        kafka_keys("broker", kafka_version)  # ValueError for a version with no key list
    if source is None:
        return None, []
    if isinstance(source, ConsumerConfig | BrokerConfig):
        if not isinstance(source, cls):
            raise TypeError(f"expected a {cls.__name__}, not a {type(source).__name__}")
        return source, []
    role = "consumer" if cls is ConsumerConfig else "broker"
    try:
        entries: Mapping[str, object] = (
            source if isinstance(source, Mapping) else read_properties(source))
    except (OSError, ValueError, UnicodeError) as err:
        return None, [Note(f"Cannot read the {role} config: {err}.",
                           f"Cannot read the {role} config", REJECTED)]
    try:
        with warnings.catch_warnings():  # unknown keys come back as warnings in the list
            warnings.simplefilter("ignore", KafkaConfigWarning)
            loaded = cls.from_properties(entries, kafka_version=kafka_version)
        return loaded.config, [Note(f"{note[0].upper()}{note[1:]}.", _key_headline(note))
                               for note in loaded.warnings]
    except (ValueError, TypeError) as err:
        text = f"Kafka would reject this {role} config: {err}."
        setting = str(err).split(" must ")[0] if " must " in str(err) else ""
        headline = f"Kafka would reject this {role} config" + (
            f": {setting} breaks a rule" if setting and len(setting) < 60 else "")
        # the rejected pair rule is read again without the setting: say what the curves use
    key, fallback = _PAIR_RULES[cls]
    if key not in entries:
        return None, [Note(text, headline, REJECTED)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", KafkaConfigWarning)
            config = cls.from_properties({k: v for k, v in entries.items() if k != key},
                                         kafka_version=kafka_version).config
    except (ValueError, TypeError):
        return None, [Note(text, headline, REJECTED)]
    return config, [Note(f"{text} The curves use the rest of it, with {key} {fallback}.",
                         f"{headline} (the curves use Kafka's default)", REJECTED)]


def _key_headline(note: str) -> str:
    """A key Kafka does not define, in one line: its first clause and "ignored"."""
    return f"{first_clause(note)}: ignored"


def first_clause(text: str, limit: int = 100) -> str:
    """``text`` up to its first ": ", "; " or ". " (a headline), at most ``limit`` characters
    (cut at a word, with an ellipsis)."""
    cuts = [i for i in (text.find(": "), text.find("; "), text.find(". ")) if i > 0]
    head = text[:min(cuts)] if cuts else text.rstrip(".")
    if len(head) > limit:
        head = head[:limit].rsplit(" ", 1)[0] + " \u2026"
    return head


def config_warnings(consumer: ConfigSource | None = None, broker: ConfigSource | None = None, *,
                    heap_bytes: int | None = None, brokers: int = 3, partitions: int = 100,
                    bytes_in_per_s: float | None = None, network_bytes_per_s: float | None = None,
                    replication_factor: int | None = None, max_batch_bytes: int = 0,
                    kafka_version: str | None = None) -> list[Note]:
    """Warnings for risky values of a consumer's and a broker's settings (see the module).

    ``consumer`` / ``broker``: config objects, mappings of Kafka keys or ``.properties`` paths;
    settings Kafka rejects become warnings (:func:`load_config`). ``heap_bytes``: the consumer's
    JVM heap (``-Xmx``); the memory checks need it. ``brokers`` / ``partitions``: the brokers the
    consumer fetches from and the partitions assigned to it. ``bytes_in_per_s``: the inbound
    (producer) rate of the partitions being moved, for the throttle checks; with
    ``network_bytes_per_s`` and ``replication_factor`` the upper end of KIP-73's workable range
    and ``replica.fetch.response.max.bytes`` are checked too. ``max_batch_bytes``: the largest
    record batch (the first-batch exception lets a fetch grow to it). ``kafka_version``: the
    consumer's Kafka release (default: the newest the model knows).
    """
    notes: list[Note] = []
    c, c_notes = load_config(ConsumerConfig, consumer)
    b, b_notes = load_config(BrokerConfig, broker)
    notes += c_notes + b_notes
    if c is not None and heap_bytes is not None:
        notes += _memory_warnings(c, b or BrokerConfig(), heap_bytes, brokers, partitions,
                                  max_batch_bytes, kafka_version)
    if b is not None and bytes_in_per_s is not None:
        notes += _throttle_warnings(b, bytes_in_per_s, network_bytes_per_s, replication_factor,
                                    brokers)
    return _ranked(notes)


def _memory_warnings(c: ConsumerConfig, b: BrokerConfig, heap_bytes: int, brokers: int,
                     partitions: int, max_batch_bytes: int,
                     kafka_version: str | None) -> list[Note]:
    """The one consumer-memory answer (lagging: no consume rate is known) against the heap."""
    if heap_bytes <= 0:
        raise ValueError(f"heap_bytes must be > 0: {heap_bytes}")
    answer = config_memory_bounds(c, b, kafka_version=kafka_version or NEWEST_KAFKA_VERSION,
                                  brokers=brokers, partitions=partitions, lagging=True,
                                  max_batch_bytes=max_batch_bytes)
    if answer.bound_bytes <= heap_bytes:
        return []
    knob = {"one response per broker": "lower fetch.max.bytes (or max.partition.fetch.bytes)",
            "buffer.memory pool": "lower buffer.memory"}.get(
                answer.rule, "lower max.partition.fetch.bytes")
    pool = (" (KIP-81 as proposed; never shipped in Kafka)"
            if c.buffer_memory_bytes is not None else "")
    return [Note(f"Consumer memory{pool}: {answer.sentence()} That is above the heap of "
                 f"{bytes_and_mib(heap_bytes)}: {knob}, or give the consumer more heap.",
                 f"Consumer memory up to {answer.bound_bytes / MiB:,.0f} MiB is above the "
                 f"{heap_bytes / MiB:,.0f} MiB heap: {knob}", UNSAFE)]


def _throttle_warnings(b: BrokerConfig, bytes_in: float, network: float | None,
                       replication_factor: int | None, brokers: int) -> list[Note]:
    """KIP-73's workable range ((R - 1) + 1) x IN < T < N - IN/R for the leader's rate
    (IN < T for the follower's) and Q&A 5's response size."""
    notes: list[Note] = []
    upper = None
    if network is not None and replication_factor is not None:
        try:
            upper = throttle_bounds(bytes_in, network, replication_factor)[1]
        except ValueError as err:
            notes.append(Note(f"Replication throttle: {err} (KIP-73 Q&A 4).",
                              "No replication throttle can work here (KIP-73 Q&A 4)", UNSAFE))
    for key, name in _THROTTLES:
        rate = getattr(b, name)
        if rate is None:
            continue
        # --throttle: the leader's quota counts the R - 1 in-sync followers, the follower's
        # quota the new replica alone (ReassignPartitionsCommand.calculateLeaderThrottles)
        f = replication_factor - 1 if key.startswith("leader") and replication_factor else 0
        if math.isinf(move_time_s(1.0, 1.0, 1, rate, bytes_in, in_sync_followers=f)):
            never = (f"{key} = {rate / MB:g} MB/s is at or below "
                     f"{'' if f == 0 else 'R x '}IN = {(f + 1) * bytes_in / MB:g} MB/s: "
                     f"the reassignment never finishes")
            if f == 0:
                notes.append(Note(f"{key} = {_rate(rate)} is at or below the inbound rate IN = "
                             f"{_rate(bytes_in)}: KIP-73's move time MoveRatio x log size x "
                             f"brokers / (throttle - IN) is infinite, the reassignment never "
                             f"finishes.", never, UNSAFE))
            else:
                notes.append(Note(f"{key} = {_rate(rate)} is at or below the inbound rate IN = "
                             f"{_rate(bytes_in)} times R = {f + 1} (R x IN = "
                             f"{_rate((f + 1) * bytes_in)}): kafka-reassign-"
                             f"partitions --throttle lists the moving partitions' current "
                             f"replicas as leader-throttled, so the leader's quota also counts "
                             f"the {f} in-sync followers' fetches; the new replica nets "
                             f"T - R x IN <= 0 and the reassignment never finishes.",
                                  never, UNSAFE))
        elif upper is not None and rate >= upper:
            notes.append(Note(
                f"{key} = {_rate(rate)} is at or above N - IN/R = {_rate(upper)} "
                f"(KIP-73 Q&A 4: a workable throttle T has T < N - IN/R): a broker "
                f"leading every moving partition has no bandwidth left for producers.",
                f"{key} = {rate / MB:g} MB/s leaves producers no bandwidth (at or above "
                f"N - IN/R = {upper / MB:g} MB/s)"))
    leader = b.leader_replication_throttled_rate_bytes_per_s
    if leader is not None and network is not None:
        window_s = b.replication_quota_window_num * b.replication_quota_window_size_seconds
        limit = max_replica_fetch_response_bytes(leader, window_s, network, brokers)
        if b.replica_fetch_response_max_bytes >= limit:
            notes.append(Note(
                f"replica.fetch.response.max.bytes = "
                f"{b.replica_fetch_response_max_bytes:,} is not below KIP-73 Q&A 5's "
                f"window x min(leader quota, N / brokers) = {window_s} s x "
                f"min({leader:,.0f}, {network:,.0f} / {brokers}) = {limit:,.0f} bytes: "
                f"the first throttled responses overshoot the quota window.",
                "replica.fetch.response.max.bytes overshoots the first quota window "
                "(KIP-73 Q&A 5)"))
    return notes
