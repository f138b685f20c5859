"""Which Kafka release does what: the behaviours kipviz models, by version and area.

Every rule that changed between releases is looked up here, in one table, with the Kafka change
that introduced it. Versions are release names as Kafka writes them ("0.10.1", "2.8", "4.0");
each was read on its release branch of apache/kafka.

>>> has("3.9", "buffered_nodes"), has("4.0", "buffered_nodes")
(False, True)
>>> fetch_request_version("0.10.0"), fetch_request_version("0.10.1"), fetch_request_version("4.3")
(2, 3, 18)
>>> request_ordering("3.6").name, request_ordering("3.7").name, request_ordering("4.2").name
('ROUND_ROBIN', 'HASH', 'ROUND_ROBIN')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kipviz.kafka.config.checks import check_choice
from kipviz.kafka.config.fields import choice
from kipviz.kafka.fetch.request import Ordering

__all__ = [
    "BEHAVIOURS",
    "KAFKA_VERSIONS",
    "KAFKA_VERSION_RULE",
    "NEWEST_KAFKA_VERSION",
    "Behaviour",
    "check_kafka_version",
    "fetch_request_version",
    "has",
    "kafka_version_field",
    "request_ordering",
    "version_key",
]

# Releases the model knows, oldest first, with the newest FetchRequest version each one's consumer
# sends (FetchRequest.json "validVersions", or Protocol.java before 2.2).
_FETCH_VERSIONS = {
    "0.10.0": 2, "0.10.1": 3, "0.10.2": 3, "0.11.0": 5, "1.0": 6, "1.1": 7, "2.0": 8,
    "2.1": 10, "2.2": 10, "2.3": 11, "2.4": 11, "2.5": 11, "2.6": 11, "2.7": 12, "2.8": 12,
    "3.0": 12, "3.1": 13, "3.2": 13, "3.3": 13, "3.4": 13, "3.5": 15, "3.6": 15, "3.7": 16,
    "3.8": 16, "3.9": 17, "4.0": 17, "4.1": 18, "4.2": 18, "4.3": 18,
}
KAFKA_VERSIONS: tuple[str, ...] = tuple(_FETCH_VERSIONS)
# the newest release whose code the model was read against (the default everywhere)
NEWEST_KAFKA_VERSION = KAFKA_VERSIONS[-1]
KAFKA_VERSION_RULE = f"one of {', '.join(KAFKA_VERSIONS)} (\"MAJOR.MINOR\", a release name)"


@dataclass(frozen=True)
class Behaviour:
    """A rule that holds from ``since`` on (until ``until``, exclusive, when it was undone)."""

    name: str
    since: str
    change: str  # the KIP, JIRA or pull request that introduced it
    summary: str
    until: str | None = None
    # "consumer": the client's fetch path; "tiered": the broker's remote one; "share": share
    # groups (KIP-932, client, broker and group coordinator); "broker": the request memory pool
    area: str = "consumer"


BEHAVIOURS: tuple[Behaviour, ...] = (
    Behaviour("response_limit", "0.10.1", "KIP-74 (fetch request v3)",
              "fetch.max.bytes caps a response; the first non-empty partition may exceed it by one "
              "record batch"),
    Behaviour("round_robin_order", "0.10.1", "KIP-74 (PartitionStates.moveToEnd)",
              "requests list partitions in assignment order, a partition that returned bytes "
              "moving to the end", until="3.7"),
    Behaviour("hash_set_order", "3.7", "KAFKA-14274 (PR #14359)",
              "AbstractFetch.fetchablePartitions copies the list into a HashSet: requests go in "
              "Java hash order", until="4.2"),
    Behaviour("round_robin_order_again", "4.2", "KAFKA-19820 (PR #20745)",
              "fetchablePartitions is a list in assignment order again, with moveToEnd"),
    Behaviour("fetch_sessions", "1.1", "KIP-227 (fetch request v7)",
              "incremental fetch sessions: the broker keeps the partition order of a session"),
    Behaviour("throttled_empty_response", "2.0", "KIP-219",
              "a quota-throttled fetch is answered at once, empty, with a throttle time; the "
              "client sends nothing to that broker until it has passed"),
    Behaviour("quota_window_cap", "2.4", "KAFKA-9677 (PR #8290)",
              "a consumer with a fetch quota gets at most quota x (quota.window.num - 1) x "
              "quota.window.size.seconds bytes per response"),
    Behaviour("broker_fetch_max_bytes", "2.5", "KIP-541 (KAFKA-9101)",
              "the broker's fetch.max.bytes (default 57671680) caps every consumer response"),
    Behaviour("buffered_nodes", "4.0", "KAFKA-17182 (PR #18795)",
              "AbstractFetch.prepareFetchRequests sends no fetch to a broker while any fetchable "
              "partition it serves has buffered data (paused partitions do not count)"),
    # tiered storage (KIP-405): the broker's remote fetch path, kipviz.kafka.tiered.fetch
    Behaviour("tiered_storage", "3.6", "KIP-405 (early access; production-ready in 3.9)",
              "a fetch below the local log start is read from remote storage by "
              "remote.log.reader.threads and answered through DelayedRemoteFetch", area="tiered"),
    Behaviour("remote_log_quotas", "3.8",
              "KIP-956 (KAFKA-15265: the code is in 3.8.0; Kafka's upgrade notes announce it in "
              "3.9.0; throttle times in 3.9)",
              "remote.log.manager.{copy,fetch}.max.bytes.per.second over SimpleRate: a copy "
              "waits, a throttled remote partition comes back empty with no error", area="tiered"),
    Behaviour("remote_fetch_max_wait", "3.8", "KIP-1018",
              "DelayedRemoteFetch expires after remote.fetch.max.wait.ms (500) instead of the "
              "request's fetch.max.wait.ms", area="tiered"),
    Behaviour("remote_fetch_several_partitions", "4.2", "KAFKA-14915 (PR #20045)",
              "one fetch request reads every remote partition it reaches, in parallel, not only "
              "the first", area="tiered"),
    Behaviour("remote_fetch_charged_up_front", "4.2", "KAFKA-19462 (PR #20088)",
              "a remote partition is charged min(max.partition.fetch.bytes, limit left) to the "
              "response limit when the request is read", area="tiered"),
    # share groups (KIP-932): kipviz.kafka.share, by release
    Behaviour("share_groups", "4.0", "KIP-932 (early access 4.0, preview 4.1, GA 4.2)",
              "share groups: several consumers read one partition, records acquired under a "
              "lock and acknowledged one by one", area="share"),
    Behaviour("share_record_locks_2000", "4.1", "KAFKA-19245 (PR #19705)",
              "group.share.partition.max.record.locks defaults to 2000 (200 in 4.0)",
              area="share"),
    Behaviour("share_fetch_max_records", "4.1", "KAFKA-19018 (PR #19334, ShareFetch v1)",
              "a share fetch carries MaxRecords and BatchSize (max.poll.records) and the broker "
              "splits MaxBytes evenly (PartitionMaxBytesStrategy.UNIFORM); 4.0's v0 carries "
              "PartitionMaxBytes = max.partition.fetch.bytes and acquires all it reads",
              area="share"),
    Behaviour("share_batch_size", "4.1", "KAFKA-18452 (PR #18459)",
              "new records are acquired in in-flight batches of BatchSize records, cut at log "
              "batch starts (createBatches)", area="share"),
    Behaviour("share_lock_cap_in_acquire", "4.2", "KAFKA-19555 (PR #20253)",
              "acquire takes at most max.record.locks - in flight new records; before, the cap "
              "was checked only before the fetch (canAcquireRecords) and one fetch's records "
              "could overshoot it", area="share"),
    Behaviour("share_throttle_delivery", "4.2", "KAFKA-17541 part 2 (PR #20837)",
              "records with max(2, ceil(limit / 2)) deliveries go out in halving parts, a "
              "record on its last attempt alone (throttleRecordsDeliveryLimit)", area="share"),
    Behaviour("share_acquire_mode", "4.2", "KIP-1206 (KAFKA-19020, PR #20246)",
              "share.acquire.mode: batch_optimized (the default, whole batches) or record_limit "
              "(at most MaxRecords)", area="share"),
    Behaviour("share_record_limit_one_node", "4.2", "KAFKA-19767 (PR #20855)",
              "in record_limit mode a share consumer fetches records from one node at a time, "
              "rotating its partitions (ShareConsumeRequestManager)", area="share"),
    Behaviour("share_group_configs", "4.3", "KIP-1240 (KAFKA-20159, KAFKA-20160, KAFKA-20162)",
              "group-level share.delivery.count.limit and share.partition.max.record.locks, "
              "bounded by the broker's group.share.{min,max}.* settings (clamped)",
              area="share"),
    Behaviour("share_assignment_interval", "4.3", "KIP-1263 (KAFKA-20291, PR #21721)",
              "the coordinator recomputes a share group's assignment at most once per "
              "group.share.assignment.interval.ms (1 s; before, at every change)", area="share"),
    # the broker's request memory pool (KIP-72): kipviz.kafka.broker
    Behaviour("request_memory_pool", "1.0", "KIP-72",
              "queued.max.request.bytes > 0 bounds the bytes of requests read (a non-strict "
              "SimpleMemoryPool of socket.request.max.bytes allocations)", area="broker"),
    Behaviour("invalid_request_buffer_released_3_9", "3.9", "KAFKA-20302 (PR #21740) in 3.9.3",
              "Processor.processCompletedReceives returns an invalid request's buffer to the "
              "pool (backported to 3.9.3)", until="4.0", area="broker"),
    Behaviour("invalid_request_buffer_released", "4.2",
              "KAFKA-20302 (PR #21740) in 4.2.1 and 4.3.0",
              "Processor.processCompletedReceives returns an invalid request's buffer to the "
              "pool; 4.0 and 4.1 (and 3.8 and older) never do: the pool shrinks for good",
              area="broker"),
    # tiered storage again
    Behaviour("follower_fetch_pending_upload", "4.3", "KIP-1023 (KAFKA-17108, KAFKA-17266)",
              "with follower.fetch.last.tiered.offset.enable a new follower starts at the "
              "leader's earliest pending-upload offset (ListOffsets v11)", area="tiered"),
)
_BY_NAME = {b.name: b for b in BEHAVIOURS}


def version_key(kafka_version: str) -> tuple[int, ...]:
    """``"0.10.1"`` -> ``(0, 10, 1)``: release names ordered as releases."""
    return tuple(int(part) for part in check_kafka_version(kafka_version).split("."))


def check_kafka_version(kafka_version: object) -> str:
    """``kafka_version`` itself when it names a release the model knows; ValueError otherwise."""
    return str(check_choice("kafka_version", kafka_version, KAFKA_VERSIONS, KAFKA_VERSION_RULE))


def kafka_version_field(default: str = NEWEST_KAFKA_VERSION) -> Any:
    """A dataclass field holding a release name, checked by :func:`check_kafka_version`'s rule
    (:func:`kipviz.kafka.config.fields.check_declared`)."""
    return choice(default, KAFKA_VERSIONS, rule=KAFKA_VERSION_RULE)


def has(kafka_version: str, behaviour: str) -> bool:
    """Whether the release follows ``behaviour`` (a name in :data:`BEHAVIOURS`)."""
    rule = _BY_NAME[behaviour]
    key = version_key(kafka_version)
    return key >= version_key(rule.since) and (rule.until is None
                                               or key < version_key(rule.until))


def fetch_request_version(kafka_version: str) -> int:
    """The newest FetchRequest version the release's consumer sends (<= 2 is pre-KIP-74)."""
    return _FETCH_VERSIONS[check_kafka_version(kafka_version)]


def request_ordering(kafka_version: str) -> Ordering:
    """The order in which the release's consumer lists partitions in a fetch request.

    0.10.0 iterates a ``HashMap`` (``SubscriptionState.assignment``); 0.10.1 to 3.6 and 4.2 on
    walk ``PartitionStates`` in assignment order with KIP-74's move-to-end; 3.7 to 4.1 build the
    request from a ``HashSet`` (KAFKA-14274, undone by KAFKA-19820).
    """
    if has(kafka_version, "round_robin_order") or has(kafka_version, "round_robin_order_again"):
        return Ordering.ROUND_ROBIN
    return Ordering.HASH
