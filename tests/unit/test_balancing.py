"""GATEWAY_TRITON_URL's forms and the gRPC targets they become (gateway.balancing)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from gateway.balancing import BALANCING_CHANNEL_ARGS, each_triton, grpc_target
from gateway.settings import Settings


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("127.0.0.1:8001", "127.0.0.1:8001"),
        ("triton:8001", "triton:8001"),
        ("dns:///triton-headless:8001", "dns:///triton-headless:8001"),
        ("10.0.0.1:8001,10.0.0.2:8001", "ipv4:10.0.0.1:8001,10.0.0.2:8001"),
        ("10.0.0.1:8001, 10.0.0.2:9001", "ipv4:10.0.0.1:8001,10.0.0.2:9001"),
        ("[::1]:8001,[fe80::1]:8001", "ipv6:[::1]:8001,[fe80::1]:8001"),
        ("localhost:8001,127.0.0.1:8002", "ipv4:127.0.0.1:8001,127.0.0.1:8002"),
    ],
)
def test_urls_become_grpc_targets(url: str, target: str) -> None:
    assert Settings(triton_url=url).triton_url == url
    assert grpc_target(url) == target


@pytest.mark.parametrize(
    "url",
    [
        "",
        "triton",
        "triton:",
        ":8001",
        "a:8001,",
        "a:8001,b",
        "a:99999",
        "dns:///triton",
        "dns:///a:1,b:2",
        "a:x",
    ],
)
def test_malformed_urls_are_refused_at_start(url: str) -> None:
    with pytest.raises(ValidationError):
        Settings(triton_url=url)


def test_mixed_address_families_are_refused() -> None:
    with pytest.raises(ValueError, match="mix"):
        grpc_target("10.0.0.1:8001,[::1]:8001")


def test_the_channel_balances_round_robin_and_retries_only_unavailable_inferences() -> None:
    args = dict(BALANCING_CHANNEL_ARGS)
    config = json.loads(str(args["grpc.service_config"]))
    assert config["loadBalancingConfig"] == [{"round_robin": {}}]
    (method,) = config["methodConfig"]
    assert method["name"] == [{"service": "inference.GRPCInferenceService", "method": "ModelInfer"}]
    assert method["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"]
    assert int(args["grpc.max_reconnect_backoff_ms"]) <= 1000


@pytest.mark.parametrize(
    ("url", "targets"),
    [
        ("127.0.0.1:8001", ["127.0.0.1:8001"]),
        ("dns:///10.0.0.1:8001", ["10.0.0.1:8001"]),
        ("10.0.0.1:8001, 10.0.0.2:9001", ["10.0.0.1:8001", "10.0.0.2:9001"]),
        ("[::1]:8001,[fe80::1]:8001", ["[::1]:8001", "[fe80::1]:8001"]),
        ("localhost:8001,127.0.0.1:8002", ["127.0.0.1:8001", "127.0.0.1:8002"]),
    ],
)
def test_readiness_asks_each_triton_the_channel_balances_over(url: str, targets: list[str]) -> None:
    assert each_triton(url) == targets


def test_every_address_of_one_name_is_a_triton_of_its_own() -> None:
    # gRPC's DNS resolver balances over all of them, so readiness asks each (localhost: 127.0.0.1,
    # and ::1 where the hosts file names it).
    assert "127.0.0.1:8001" in each_triton("dns:///localhost:8001")
    assert each_triton("localhost:8001") == each_triton("dns:///localhost:8001")
