"""CIDR functions (hashicorp/go-cty-funcs/cidr over apparentlymart/go-cidr)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from rocm_bake.model.hcl.functions.params import (
    ArgError,
    CallError,
    Function,
    Param,
    as_str,
    define,
    int_arg,
)
from rocm_bake.model.hcl.types import NUMBER, STRING
from rocm_bake.model.hcl.values import ListValue, Value


@dataclass(frozen=True)
class _Network:
    address: int
    prefix: int
    bits: int

    def text(self, address: int) -> str:
        if self.bits == 32:
            return str(ipaddress.IPv4Address(address))
        return str(ipaddress.IPv6Address(address))


def _parse_cidr(text: str) -> _Network:
    try:
        if "/" not in text:
            raise ValueError
        address_text, prefix_text = text.split("/", 1)
        if not (prefix_text.isascii() and prefix_text.isdigit()) or "%" in address_text:
            raise ValueError
        address = ipaddress.ip_address(address_text)
        bits = 32 if address.version == 4 else 128
        prefix = int(prefix_text)
        if prefix > bits:
            raise ValueError
    except ValueError:
        raise CallError(f"invalid CIDR expression: invalid CIDR address: {text}") from None
    host_bits = bits - prefix
    masked = (int(address) >> host_bits) << host_bits
    return _Network(masked, prefix, bits)


def _insert(network: _Network, number: int, prefix: int) -> int:
    """go-cidr insertNumIntoIP (with big.Int's two's-complement Or and Bytes)."""
    value = (number << (network.bits - prefix)) | network.address
    return abs(value) & ((1 << network.bits) - 1)


def _cidrhost(args: list[Value]) -> Value:
    hostnum = int_arg(args[1])
    network = _parse_cidr(as_str(args[0]))
    host_bits = network.bits - network.prefix
    max_host = (1 << host_bits) - 1
    magnitude = abs(hostnum) & ((1 << 64) - 1)
    number = hostnum
    if hostnum < 0:
        magnitude = -hostnum - 1
        number = max_host - magnitude
    if magnitude > max_host:
        raise CallError(f"prefix of {network.prefix} does not accommodate a host numbered {number}")
    return network.text(_insert(network, number, network.bits))


def _cidrnetmask(args: list[Value]) -> Value:
    network = _parse_cidr(as_str(args[0]))
    mask = ((1 << network.prefix) - 1) << (network.bits - network.prefix)
    return network.text(mask)


def _cidrsubnet(args: list[Value]) -> Value:
    newbits, netnum = int_arg(args[1]), int_arg(args[2])
    network = _parse_cidr(as_str(args[0]))
    if newbits > 32:
        raise CallError("may not extend prefix by more than 32 bits")
    prefix = network.prefix + newbits
    if prefix > network.bits:
        raise CallError(
            f"insufficient address space to extend prefix of {network.prefix} by {newbits}"
        )
    if (abs(netnum) & ((1 << 64) - 1)) > (1 << newbits) - 1:
        raise CallError(
            f"prefix extension of {newbits} does not accommodate a subnet numbered {netnum}"
        )
    return f"{network.text(_insert(network, netnum, prefix))}/{prefix}"


def _cidrsubnets(args: list[Value]) -> Value:
    network = _parse_cidr(as_str(args[0]))
    lengths = args[1:]
    if not lengths:
        return ListValue([])
    full = (1 << network.bits) - 1
    first = min(int_arg(lengths[0], 1) + network.prefix, network.bits)

    def mask(prefix: int) -> int:
        return full ^ ((1 << (network.bits - prefix)) - 1) if prefix else 0

    current_addr = ((network.address - 1) & full) & mask(first)
    current_prefix = first
    out: list[Value] = []
    for index, arg in enumerate(lengths, start=1):
        length = int_arg(arg, index)
        if length < 1:
            raise ArgError(index, "must extend prefix by at least one bit")
        if length > 32:
            raise ArgError(index, "may not extend prefix by more than 32 bits")
        length += network.prefix
        if length > network.bits:
            family = "IPv4" if network.bits == 32 else "IPv6"
            raise ArgError(
                index,
                f"would extend prefix to {length} bits, which is too long for an {family} address",
            )
        last = current_addr | (full ^ mask(current_prefix))
        subnet = last & mask(length)
        next_addr = ((subnet | (full ^ mask(length))) + 1) & full
        next_addr &= mask(length)
        outside = (next_addr & mask(network.prefix)) != network.address
        if next_addr == 0 or outside:
            raise ArgError(
                index,
                f"not enough remaining address space for a subnet with a prefix of {length} "
                f"bits after {network.text(current_addr)}/{current_prefix}",
            )
        current_addr, current_prefix = next_addr, length
        out.append(f"{network.text(current_addr)}/{current_prefix}")
    return ListValue(out)


TABLE: dict[str, Function] = {
    "cidrhost": define("cidrhost", [Param("prefix", STRING), Param("hostnum", NUMBER)], _cidrhost),
    "cidrnetmask": define("cidrnetmask", [Param("prefix", STRING)], _cidrnetmask),
    "cidrsubnet": define(
        "cidrsubnet",
        [Param("prefix", STRING), Param("newbits", NUMBER), Param("netnum", NUMBER)],
        _cidrsubnet,
    ),
    "cidrsubnets": define(
        "cidrsubnets", [Param("prefix", STRING)], _cidrsubnets, Param("newbits", NUMBER)
    ),
}
