"""A broker's request log, read back: every fetch a client sent and what the broker answered.

A :class:`~kipviz.reality.cluster.KafkaCluster` made with ``request_log=True`` has each broker
write ``kafka.request.logger`` at DEBUG to ``requests.log``: one ``Completed request:{json}``
line per request, the request and its response as Kafka's generated JSON converters write them
(4.4 ``server/.../network/Request.java:394``, 3.9 ``RequestChannel.scala:284``). A fetch
response is written without its records but with each partition's ``recordsSizeInBytes``
(``FetchResponseDataJsonConverter.write(data, version, false)``), in the order the broker put
them in the response, so the log is the broker's own account of which partitions it read, in
which order and how many bytes each, fetch after fetch, with the fetch session's id and epoch
and the partitions the client added, changed and forgot (KIP-227).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FETCH_API_KEY", "FetchExchange", "fetch_exchanges"]

FETCH_API_KEY = 1
_PREFIX = "Completed request:"


@dataclass(frozen=True)
class FetchExchange:
    """One FetchRequest and its response, as the broker logged them."""

    correlation_id: int
    version: int
    session_id: int                        # the request's (0: no session)
    session_epoch: int                     # 0: a full fetch that asks for a session, -1: none
    requested: tuple[int, ...]             # partitions the request lists, in its order
    forgotten: tuple[int, ...]             # partitions it removes from the session
    response: tuple[tuple[int, int], ...]  # (partition, bytes of records), in response order
    response_session_id: int               # the session the response names (0: none)

    @property
    def full(self) -> bool:
        """A full fetch (epoch 0 or -1): the broker reads the request's partitions in its order."""
        return self.session_epoch <= 0

    @property
    def returned(self) -> tuple[tuple[int, int], ...]:
        """The partitions that returned records, in response order."""
        return tuple(x for x in self.response if x[1] > 0)


def _partitions(topics: list[dict[str, object]], key: str) -> tuple[int, ...]:
    out: list[int] = []
    for t in topics:
        for p in t.get("partitions", []):  # type: ignore[attr-defined]
            out.append(int(p[key]) if isinstance(p, dict) else int(p))
    return tuple(out)


def fetch_exchanges(path: Path, client_id: str) -> list[FetchExchange]:
    """The fetches ``client_id`` sent to the broker that wrote ``path``, in the order the
    broker completed them (a client has one fetch in flight per broker, so that is the order
    it sent them)."""
    out = []
    for line in path.read_text(errors="replace").splitlines():
        if not line.startswith(_PREFIX):
            continue
        entry = json.loads(line[len(_PREFIX):])
        header = entry["requestHeader"]
        if header["requestApiKey"] != FETCH_API_KEY or header.get("clientId") != client_id:
            continue
        request, response = entry["request"], entry["response"]
        out.append(FetchExchange(
            correlation_id=int(header["correlationId"]),
            version=int(header["requestApiVersion"]),
            session_id=int(request.get("sessionId", 0)),
            session_epoch=int(request.get("sessionEpoch", -1)),
            requested=_partitions(request["topics"], "partition"),
            forgotten=_partitions(request.get("forgottenTopicsData", []), "partitions"),
            response=tuple((int(p["partitionIndex"]), int(p["recordsSizeInBytes"]))
                           for t in response["responses"] for p in t["partitions"]),
            response_session_id=int(response.get("sessionId", 0))))
    return out
