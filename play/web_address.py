"""Where ``euchre serve`` listens and whom it answers: the ``Host`` names a request may carry (the allow-list that
shuts out DNS-rebinding pages), the socket bound before anything is printed, and the URL a person can open.
Plain functions over addresses; :mod:`euchre_env.play.web` calls them."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server


def _address(name: str) -> str:
    """A host name or address as compared: lower case, no trailing dot, an IP address in its one canonical
    text (``0:0::1`` and ``::1`` alike)."""
    name = name.lower().rstrip(".")
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name


def _wildcard(host: str) -> bool:
    """``host`` is ``0.0.0.0`` or ``::``: the server answers on every address of this machine."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def host_allowed(header: str, host: str) -> bool:
    """Whether a request's ``Host`` header (``name``, ``name:port``, ``[v6]:port``) names this server bound to
    ``host``: a loopback name or address, ``host`` itself, and, bound to every address (``0.0.0.0``, ``::``),
    any IP address and this machine's host name. A DNS-rebinding page sends its own domain name, which is none
    of these (an IP address cannot be rebound: a page at one is that address's own origin)."""
    if header.startswith("["):
        name = header[1:].partition("]")[0]
    else:
        name = header.rpartition(":")[0] if header.count(":") == 1 else header
    name = _address(name)
    if name in ("localhost", _address(host)):
        return True
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        return _wildcard(host) and name == _address(socket.gethostname())
    return ip.is_loopback or _wildcard(host)


def bind(app: Flask, host: str, port: int) -> BaseWSGIServer:
    """A threaded server for ``app``, its socket bound to ``host``:``port`` and listening, not yet serving (call
    ``serve_forever``). An address in use, not this machine's or not an address raises ``OSError`` here, so that
    the caller says so in its own words before anything else (Werkzeug's own bind prints its text and exits)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as Werkzeug chooses (make_server below)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Werkzeug's: a restart reuses the port
        sock.bind(socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)[0][4])
        sock.listen(BaseWSGIServer.request_queue_size)
        return make_server(host, port, app, threaded=True, fd=sock.fileno())
    finally:
        sock.close()  # the server holds its own duplicate of the socket (socket.fromfd)


def page_url(host: str, address: tuple[Any, ...]) -> tuple[str, bool]:
    """The URL to open for a server bound from ``--host host`` to ``address`` (its socket's), and whether
    other machines can reach it. Bound to every address, the URL is the loopback one (``0.0.0.0`` is no
    address a browser can open)."""
    ip = ipaddress.ip_address(address[0])
    name = ("127.0.0.1" if ip.version == 4 else "::1") if ip.is_unspecified else host
    return f"http://{f'[{name}]' if ':' in name else name}:{address[1]}/", not ip.is_loopback
