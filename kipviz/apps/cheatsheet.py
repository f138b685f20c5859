"""The course's one-page cheat sheet and glossary, as tables the package builds (never typed twice).

:func:`formulas` lists which limit applies when, with its formula, the Kafka releases it holds
for and the source; :func:`version_table` is :data:`kipviz.kafka.config.versions.BEHAVIOURS`;
:func:`defaults_table` reads the Kafka settings kipviz models, with their defaults and rules, from
the config classes' own field declarations; :data:`GLOSSARY` defines the terms the lessons use.

>>> formulas().loc[0, "question"]
'How many bytes can one fetch response hold?'
>>> defaults_table().set_index("setting").loc["fetch.max.bytes (consumer)", "default"]
'52428800 (50 MiB)'
"""

from __future__ import annotations

import dataclasses
import inspect

import pandas as pd

from kipviz.kafka.config.declarations import Setting
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from kipviz.kafka.config.versions import BEHAVIOURS, KAFKA_VERSIONS
from kipviz.kafka.units import MiB

__all__ = ["GLOSSARY", "client_table", "defaults_table", "formulas", "glossary_table",
           "version_table"]


_FORMULAS = (
    ("How many bytes can one fetch response hold?",
     "min(client fetch.max.bytes, broker fetch.max.bytes, fetch quota x (quota.window.num - 1) x "
     "quota.window.size.seconds), except that the first non-empty partition's first record batch "
     "comes back whole",
     "0.10.1 on (broker and quota caps 2.5 on)", "KIP-74, KIP-541, KAFKA-9677; lesson 1"),
    ("How many bytes can one partition bring in a response?",
     "min(max.partition.fetch.bytes, what is left of the response limit); a partial tail batch is "
     "dropped and fetched again", "0.10.1 on", "KIP-74, ReplicaManager.readFromLog; lesson 1"),
    ("How much memory will my consumer use?",
     "min(brokers x fetch.max.bytes, partitions x max.partition.fetch.bytes) + one record batch "
     "per broker: one response per broker, however far it lags; + one whole response per paused "
     "partition with data (records are slices of their response's buffer)", "4.0 on",
     "KAFKA-17182 (AbstractFetch.prepareFetchRequests), CompletedFetch; lessons 1, 3"),
    ("How much memory will my consumer use, before 4.0?",
     "partitions x max(max.partition.fetch.bytes, largest batch) + the whole response being "
     "drained + one whole response per paused partition with data; about KIP-74's min(brokers x "
     "fetch.max.bytes, partitions x max.partition.fetch.bytes) while the application keeps up",
     "0.10.1 to 3.9", "AbstractFetch.fetchablePartitions, CompletedFetch; lessons 1, 3"),
    ("In which order does the broker read my partitions?",
     "an incremental fetch in the fetch session's order (partitions that returned records move "
     "to the end); the request order (hash order 3.7 to 4.1) only for full fetches and re-added "
     "partitions", "1.1 on",
     "KIP-227, IncrementalFetchContext, KAFKA-12330 (3.0), KAFKA-14274; lesson 1"),
    ("How much can the broker's request pool hold?",
     "queued.max.request.bytes + socket.request.max.bytes - 1 (non-strict pool); no pool at the "
     "default -1", "1.0 on", "KIP-72, SimpleMemoryPool; lesson 2"),
    ("How much would KIP-81's consumer pool hold?",
     "buffer.memory + largest response - 1 (as proposed; never shipped)", "never shipped",
     "KIP-81; lesson 3"),
    ("How long will my throttled reassignment take?",
     "--throttle T sets both quotas on every broker of the plan: per destination, bytes it "
     "receives / (T - IN of its new replicas); per leader, bytes it sends / (T - IN x its "
     "followers and new replicas); each a lower bound, the move time is the flow schedule "
     "(kipviz.plan_reassignment, kipviz plan); never when a headroom is <= 0",
     "0.10.1 on", "KIP-73, ReassignPartitionsCommand; lesson 4"),
    ("KIP-73's single-pair arithmetic (one leader, one destination)",
     "bytes / (T - (F + 1) x IN), F the in-sync followers --throttle counts (KIP-73 wrote "
     "T - IN): kipviz.apps.planner.plan_throttle",
     "0.10.1 on", "KIP-73 Q&A 1; lesson 4"),
    ("How many bytes does a share fetch give each partition?",
     "fetch.max.bytes (the request's MaxBytes) split evenly over the partitions acquired, the "
     "remainder to one of them (PartitionMaxBytesStrategy.UNIFORM); max.poll.records caps the "
     "records; 4.0 (ShareFetch v0) asks each partition for max.partition.fetch.bytes and has no "
     "MaxRecords", "4.0 on (early access; 4.1 preview; 4.2 GA)",
     "KIP-932, KAFKA-19018; lesson 7"),
    ("How many records can be in flight on a share partition?",
     "from 4.2 group.share.partition.max.record.locks (2000; 200 in 4.0) + the largest log "
     "batch - 1: acquisition runs to the end of a batch; before 4.2 the cap is checked only "
     "before a fetch, so nothing bounds it; from 4.3 a group may set its own, clamped to "
     "group.share.{min,max}.partition.max.record.locks (100, 4000)", "4.0 on",
     "KIP-932, KAFKA-19555, KIP-1240, SharePartition; lesson 7"),
    ("How many share fetches does a share consumer's memory hold?",
     "one response per leader of its partitions; in record_limit mode from 4.2 one node at a "
     "time (KAFKA-19767)", "4.0 on", "ShareConsumeRequestManager; lesson 7"),
    ("What does an invalid request cost the broker's pool?",
     "3.8 and older, 4.0 and 4.1 never return its buffer (the pool shrinks for good); 3.9.3, "
     "4.2.1 and 4.3.0 do. "
     "A TLS handshake on a PLAINTEXT listener reads as 369,295,617 bytes: refused by the default "
     "socket.request.max.bytes (100 MiB) before any allocation", "1.0 on",
     "KAFKA-20302, SocketServer.Processor, NetworkReceive; lesson 2"),
    ("How much can one fetch read from tiered storage?",
     "before 4.2 one remote partition per request; from 4.2 several, each charged min("
     "max.partition.fetch.bytes, what is left of the response limit) up front; the local data "
     "waits up to remote.fetch.max.wait.ms; a read that finds remote.log.reader.max.pending.tasks "
     "(100) reads queued fails", "3.6 on (several from 4.2)",
     "KIP-405, KAFKA-14915, KAFKA-19462, KIP-1018; lesson 8"),
    ("How much memory will my Streams app use for its input?",
     "partitions x (buffered.records.per.partition x record + one fetch) + each thread's consumer "
     "with every partition paused (StreamTask pauses a full queue; a poll hands over at most "
     "max.poll.records, so a paused partition pins its whole response): partitions x largest "
     "response (min(fetch.max.bytes, a broker's partitions x max.partition.fetch.bytes))",
     "all releases", "StreamTask, RecordQueue, CompletedFetch; lesson 5 (KIP-770: reverted)"),
)


def formulas() -> pd.DataFrame:
    """Which limit applies when: ``question``, ``formula``, ``kafka`` (releases), ``source``."""
    return pd.DataFrame(_FORMULAS, columns=["question", "formula", "kafka", "source"])


def _rule_of(module: object) -> str:
    """The "rule in two sentences" paragraph of a client module's docstring (issue 31)."""
    doc = inspect.getdoc(module) or ""
    para = next(p for p in doc.split("\n\n") if p.startswith("The rule in two sentences:"))
    return " ".join(para.removeprefix("The rule in two sentences:").split()).replace("``", "")


def client_table(partitions: int = 1000, brokers: int = 3) -> pd.DataFrame:
    """One row per client (issue 31): ``client``, ``read at`` (the version its rules were read
    from), ``rule`` (its memory rule in words, from its module in :mod:`kipviz.kafka.clients`;
    Java's is the 4.0-on formula above), ``settings`` (the ones that move the bound, by its own
    names) and the bound at defaults for ``partitions`` on ``brokers``, lagging, with the
    sentence :func:`~kipviz.kafka.clients.client_memory_bounds` gives."""
    from kipviz.kafka.clients import client_memory_bounds, franz_go, kafka_python, librdkafka
    from kipviz.kafka.clients.settings import CLIENTS
    from kipviz.scenarios.consumer import ConsumerScenario

    java = client_memory_bounds("java", ConsumerScenario(partitions=partitions, brokers=brokers),
                                max_batch_bytes=1048588)
    rows = [{"client": "java", "read at": f"Kafka {ConsumerScenario().kafka_version}",
             "rule": _FORMULAS[2][1], "settings": "fetch.max.bytes, max.partition.fetch.bytes",
             "bound at defaults (MiB)": round(java.lagging_bytes / MiB, 1),
             "why": java.sentence()}]
    for name, module in (("librdkafka", librdkafka), ("franz-go", franz_go),
                         ("kafka-python", kafka_python)):
        bound = client_memory_bounds(name, partitions, brokers)
        table = CLIENTS[name]
        source = table[next(iter(table))].source  # "librdkafka v2.15.0 src/rdkafka_conf.c:..."
        rows.append({"client": name, "read at": " ".join(source.split()[:2]),
                     "rule": _rule_of(module),
                     "settings": ", ".join(table), "bound at defaults (MiB)":
                     round(bound.bound_bytes / MiB, 1), "why": bound.sentence})
    return pd.DataFrame(rows)


def version_table() -> pd.DataFrame:
    """The behaviours by release and area (consumer, tiered, share, broker:
    :data:`kipviz.kafka.config.versions.BEHAVIOURS`)."""
    rows = [{"since": b.since, "until": b.until or "", "area": b.area, "change": b.change,
             "what": b.summary} for b in BEHAVIOURS]
    table = pd.DataFrame(rows)
    order = {v: i for i, v in enumerate(KAFKA_VERSIONS)}
    return table.sort_values("since", key=lambda s: s.map(order), kind="stable").reset_index(
        drop=True)


def _default_text(value: object) -> str:
    if value is None:
        return "unset"
    if isinstance(value, int) and value >= MiB and value % (MiB // 16) == 0:
        return f"{value} ({value / MiB:g} MiB)"
    return str(value)


def _rule_text(setting: Setting) -> str:
    return "" if setting.at_least is None else f">= {setting.at_least}"


def defaults_table() -> pd.DataFrame:
    """Every Kafka setting kipviz models: ``setting`` (with its role), ``default`` and ``rule``,
    read from the declarations (:mod:`kipviz.kafka.config.declarations`) of the fields of
    :class:`~kipviz.kafka.config.settings.ConsumerConfig` and
    :class:`~kipviz.kafka.config.settings.BrokerConfig`."""
    rows = []
    for role, cls in (("consumer", ConsumerConfig), ("broker", BrokerConfig)):
        for f in dataclasses.fields(cls):
            setting = f.metadata.get("setting")
            if not isinstance(setting, Setting):
                continue
            rows.append({"setting": f"{setting.key} ({role})",
                         "default": _default_text(setting.default),
                         "rule": _rule_text(setting), "field": f.name})
    return pd.DataFrame(rows)


GLOSSARY = {
    "Jain's index": "Fairness of one window: (sum x)^2 / (n x sum x^2) over the partitions "
                    "(or consumers) that had data, x being each one's bytes divided by its "
                    "max-min fair share. 1 is perfectly fair; 1/n means one took everything.",
    "max-min fair share": "What each partition would get if the bytes delivered were shared by "
                          "water-filling: nobody gets more than it asked for, and the rest is "
                          "split evenly among those that want more.",
    "tick": "The simulation's time step (10 ms unless a scenario says otherwise).",
    "window": "A run of ticks the curves aggregate over (a run of 2,000 ticks in 20 windows has "
              "windows of 1 s).",
    "held memory": "Bytes of fetch responses that reached the consumer and were not yet handed to "
                   "the application (completed fetches).",
    "retained memory": "Bytes of responses read and not yet released: a response's buffer stays "
                       "until its last partition is consumed (what KIP-81's pool would count).",
    "in flight": "Bytes of responses the brokers sent that have not reached the consumer yet.",
    "pool dry %": "The share of ticks a memory pool had no memory left (available <= 0).",
    "first-batch exception": "A fetch always returns the first record batch of the first "
                             "non-empty partition whole, even above the limits (KIP-74).",
    "fetch session": "KIP-227 (Kafka 1.1): the broker remembers a consumer's partitions, so "
                     "requests carry only what changed; it rotates partitions that returned data "
                     "to the end.",
    "buffered node": "Kafka 4.0 (KAFKA-17182): a broker serving a partition with buffered data; "
                     "the consumer sends it no fetch until that data is consumed.",
    "throttle time": "How long a client must wait after going over a quota: (observed - bound) / "
                     "bound x the rate's window, rounded as Java's Math.round.",
    "IN": "What producers append to a partition, in bytes/s (IN_p); a broker's or a topic's "
          "IN is the sum over its partitions (KIP-73's per-broker IN: those it leads). "
          "kipviz splits a topic's IN over its partitions by size when no per-partition "
          "rate is given.",
    "T": "A replication throttle, leader.replication.throttled.rate or "
         "follower.replication.throttled.rate, in bytes per second.",
    "R": "The replication factor.",
    "MoveRatio": "KIP-73's share of a broker's log that a reassignment moves.",
    "MiB / MB": "Sizes are in MiB (1,048,576 bytes) with the byte value where Kafka's setting is "
                "in bytes; rates are in MB/s (1,000,000 bytes per second), and amounts moved at a "
                "rate or measured that way (bytes to reassign, a published heap) in decimal MB.",
}
"""The terms the lessons use, defined once."""


def glossary_table() -> pd.DataFrame:
    """:data:`GLOSSARY` as a two-column table, in alphabetical order."""
    return pd.DataFrame(sorted(GLOSSARY.items(), key=lambda kv: kv[0].lower()),
                        columns=["term", "meaning"])

