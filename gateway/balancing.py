"""Per-request balancing over many Tritons with gRPC's own client-side load balancing.

`GATEWAY_TRITON_URL` names one Triton (`host:port`), a list (`host:port,host:port`) or a DNS
name that resolves to many (`dns:///triton-headless:8001`, a Kubernetes headless Service).
`grpc_target` turns it into a gRPC channel target (a list becomes one `ipv4:`/`ipv6:` target
with every address), and `BALANCING_CHANNEL_ARGS` make the one channel open a connection to
each address and spread calls round-robin over the connected ones. A Triton that dies drops
its connection and leaves the rotation at once; the channel reconnects to it within about a
second once it is back. A call cut off by the death of its Triton is retried once on another
(UNAVAILABLE only: inference is stateless, and UNAVAILABLE means nothing was answered).

Names in a list are resolved once, at start; a set that changes belongs behind `dns:///`,
which gRPC re-resolves when a connection breaks.

A call on the channel reaches one Triton, so readiness asks each on its own: `each_triton` names
one target per Triton the channel balances over (every address of a single name, which gRPC's
DNS resolver spreads over too; the address `grpc_target` takes for each name of a list).

Errors: `ValueError` for a malformed URL (raised inside the settings' validator).
"""

from __future__ import annotations

import ipaddress
import json
import socket

DNS_SCHEME = "dns:///"
# Reconnect to a Triton that came back within about a second (gRPC's default waits up to 120 s).
RECONNECT_BACKOFF_MS = 250
MAX_RECONNECT_BACKOFF_MS = 1000
# How long gRPC waits between DNS re-resolutions of a dns:/// target (default 30 s).
DNS_MIN_REFRESH_MS = 2000
_SERVICE_CONFIG = {
    "loadBalancingConfig": [{"round_robin": {}}],
    "methodConfig": [
        {
            "name": [{"service": "inference.GRPCInferenceService", "method": "ModelInfer"}],
            "retryPolicy": {
                "maxAttempts": 2,
                "initialBackoff": "0.01s",
                "maxBackoff": "0.1s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            },
        }
    ],
}
BALANCING_CHANNEL_ARGS: list[tuple[str, str | int]] = [
    ("grpc.service_config", json.dumps(_SERVICE_CONFIG)),
    ("grpc.enable_retries", 1),
    ("grpc.initial_reconnect_backoff_ms", RECONNECT_BACKOFF_MS),
    ("grpc.min_reconnect_backoff_ms", RECONNECT_BACKOFF_MS),
    ("grpc.max_reconnect_backoff_ms", MAX_RECONNECT_BACKOFF_MS),
    ("grpc.dns_min_time_between_resolutions_ms", DNS_MIN_REFRESH_MS),
]


def split_endpoints(url: str) -> list[tuple[str, int]]:
    """The (host, port) pairs of `host:port[,host:port...]`; raises ValueError."""
    endpoints = []
    for item in (part.strip() for part in url.split(",")):
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"Triton endpoint must be host:port, got {item!r}")
        endpoints.append((host.strip("[]"), int(port)))
    return endpoints


def validate_triton_url(url: str) -> str:
    """Check one of the accepted forms (see the module docstring); raises ValueError."""
    endpoints = split_endpoints(url.removeprefix(DNS_SCHEME))
    if url.startswith(DNS_SCHEME) and len(endpoints) != 1:
        raise ValueError(f"a dns:/// target names one host:port, got {url!r}")
    return url


Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _addresses(host: str) -> list[Address]:
    """Every address of `host` (itself when it is one), in the resolver's order; raises OSError."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        return list(dict.fromkeys(ipaddress.ip_address(sockaddr[0]) for *_, sockaddr in found))


def _address(host: str) -> Address:
    return _addresses(host)[0]


def _target(address: Address, port: int) -> str:
    return f"[{address}]:{port}" if address.version == 6 else f"{address}:{port}"


def grpc_target(url: str) -> str:
    """The gRPC channel target for `url`: unchanged for one endpoint or dns:///, else ipv4:/ipv6:."""
    if url.startswith(DNS_SCHEME) or "," not in url:
        return url
    addresses = [(_address(host), port) for host, port in split_endpoints(url)]
    if all(address.version == 4 for address, _ in addresses):
        return "ipv4:" + ",".join(_target(address, port) for address, port in addresses)
    if all(address.version == 6 for address, _ in addresses):
        return "ipv6:" + ",".join(_target(address, port) for address, port in addresses)
    raise ValueError(f"Triton endpoints mix IPv4 and IPv6 addresses: {url!r}")


def each_triton(url: str) -> list[str]:
    """One `address:port` target per Triton the channel for `url` balances over, names resolved
    now (see the module docstring); raises OSError when a name does not resolve."""
    endpoints = split_endpoints(url.removeprefix(DNS_SCHEME))
    if len(endpoints) == 1:
        ((host, port),) = endpoints
        return [_target(address, port) for address in _addresses(host)]
    return [_target(_address(host), port) for host, port in endpoints]
