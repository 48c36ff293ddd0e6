"""A real package index on 127.0.0.1 for end-to-end tests.

Serves the PEP 503 HTML simple API (``/simple/``, ``/simple/<project>/``) with
optional ``#sha256=`` fragments, the PEP 691 JSON API when the ``Accept`` header
asks for ``application/vnd.pypi.simple.v1+json``, and the files under
``/files/<project>/<filename>``. Faults can be injected per file name (or per
project page) to test how pip and pip-variants degrade. Every request path is
recorded in :attr:`LocalIndex.requests_log`.

Loopback only, port 0, daemon threads; every sleep is bounded and interrupted
by :meth:`LocalIndex.stop`.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import socket
import struct
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Dict, List, Optional, Tuple, Union
from urllib.parse import quote, unquote, urlsplit

__all__ = ["LocalIndex", "FAULT_KINDS", "JSON_CONTENT_TYPE", "canonical_name"]

JSON_CONTENT_TYPE = "application/vnd.pypi.simple.v1+json"
FAULT_KINDS = ("404", "500", "timeout", "reset", "trickle", "garbage", "redirect-loop", "redirect-file", "cut",
               "cut-once", "short", "short-once")
HashMode = Union[bool, str, None]


def canonical_name(name: str) -> str:
    """PEP 503 normalisation."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class _File:
    filename: str
    data: bytes
    hash_mode: HashMode = True  # True/"sha256": right hash, False/None: none, "wrong": a wrong one
    requires_python: Optional[str] = None
    #: PEP 592: the reason a yanked file was yanked ("" for none given); None: not yanked
    yanked: Optional[str] = None

    def core_metadata(self) -> Optional[bytes]:
        """The wheel's METADATA, served as ``<file>.metadata`` (PEP 658) when the index does."""
        if not self.filename.endswith(".whl"):
            return None
        import io
        import zipfile

        with zipfile.ZipFile(io.BytesIO(self.data)) as zf:
            name = next((n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")), None)
            return zf.read(name) if name else None

    def sha256(self) -> Optional[str]:
        if self.hash_mode in (False, None):
            return None
        if self.hash_mode == "wrong":
            return hashlib.sha256(b"not the content of " + self.data).hexdigest()
        return hashlib.sha256(self.data).hexdigest()


@dataclass
class _Fault:
    kind: str
    seconds: Optional[float] = None
    chunk: int = 16
    delay: float = 0.25


class LocalIndex:
    """A PEP 503 / PEP 691 index bound to ``127.0.0.1`` on a free port.

    ``api``: ``"auto"`` (JSON when the client's ``Accept`` asks for it, else
    HTML), ``"html"`` or ``"json"`` (always that format).
    ``max_fault_seconds`` bounds every ``timeout`` / ``trickle`` fault.
    ``pep658``: publish every wheel's METADATA beside it (``<file>.metadata``,
    as PyPI does): pip then resolves without downloading the wheels.
    """

    def __init__(self, *, api: str = "auto", max_fault_seconds: float = 30.0, pep658: bool = False) -> None:
        if api not in ("auto", "html", "json"):
            raise ValueError(f"api must be auto, html or json, not {api!r}")
        self.api = api
        self.pep658 = pep658
        self.max_fault_seconds = min(float(max_fault_seconds), 30.0)
        self._projects: Dict[str, Dict[str, _File]] = {}
        self._faults: Dict[str, _Fault] = {}
        self._page_faults: Dict[str, _Fault] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: Optional[ThreadingHTTPServer] = None
        self._thread: Optional[threading.Thread] = None
        self.requests_log: List[str] = []
        self.requests: List[Dict[str, str]] = []
        #: ``(user, password)``: every request without them gets a 401 (HTTP Basic)
        self.credentials: Optional[Tuple[str, str]] = None

    # -- content ---------------------------------------------------------

    def add_bytes(
        self,
        project: str,
        filename: str,
        data: bytes,
        *,
        hash: HashMode = True,
        requires_python: Optional[str] = None,
    ) -> str:
        """Publish ``data`` as ``filename`` on ``project``'s page; returns its URL."""
        if "/" in filename or not filename:
            raise ValueError(f"bad file name {filename!r}")
        if hash not in (True, False, None, "sha256", "wrong"):
            raise ValueError(f"hash must be True, False, None, 'sha256' or 'wrong', not {hash!r}")
        with self._lock:
            self._projects.setdefault(canonical_name(project), {})[filename] = _File(
                filename, bytes(data), hash, requires_python
            )
        return self.file_url(project, filename)

    def add_file(
        self,
        project: str,
        path: Union[str, Path],
        *,
        hash: HashMode = True,
        requires_python: Optional[str] = None,
    ) -> str:
        path = Path(path)
        return self.add_bytes(
            project, path.name, path.read_bytes(), hash=hash, requires_python=requires_python
        )

    def add_files(self, project: str, paths, *, hash: HashMode = True) -> List[str]:
        return [self.add_file(project, p, hash=hash) for p in paths]

    def remove(self, project: str, filename: str) -> None:
        with self._lock:
            self._projects.get(canonical_name(project), {}).pop(filename, None)

    def yank(self, project: str, filename: str, reason: str = "") -> None:
        """Mark one published file yanked (PEP 592), with ``reason`` if given."""
        with self._lock:
            self._projects[canonical_name(project)][filename].yanked = reason

    def set_hash(self, project: str, filename: str, hash: HashMode) -> None:
        with self._lock:
            self._projects[canonical_name(project)][filename].hash_mode = hash

    def fault(
        self,
        filename: str,
        kind: Optional[str],
        *,
        seconds: Optional[float] = None,
        chunk: int = 16,
        delay: float = 0.25,
    ) -> None:
        """Make requests for ``filename`` fail: ``kind`` in :data:`FAULT_KINDS`,
        or ``None`` to clear. ``seconds`` bounds ``timeout``/``trickle``
        (capped at ``max_fault_seconds``); ``chunk``/``delay`` shape ``trickle``."""
        self._set_fault(self._faults, filename, kind, seconds, chunk, delay)

    def fault_page(
        self,
        project: str,
        kind: Optional[str],
        *,
        seconds: Optional[float] = None,
        chunk: int = 16,
        delay: float = 0.25,
    ) -> None:
        """Like :meth:`fault`, for the ``/simple/<project>/`` page."""
        self._set_fault(self._page_faults, canonical_name(project), kind, seconds, chunk, delay)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._page_faults.clear()

    def _set_fault(self, table, key, kind, seconds, chunk, delay) -> None:
        if kind is not None and kind not in FAULT_KINDS:
            raise ValueError(f"fault kind must be one of {FAULT_KINDS}, not {kind!r}")
        with self._lock:
            if kind is None:
                table.pop(key, None)
            else:
                table[key] = _Fault(kind, seconds, max(1, int(chunk)), max(0.0, float(delay)))

    # -- addresses ---------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("LocalIndex is not running")
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The ``--index-url`` value."""
        return f"{self.base_url}/simple/"

    def project_url(self, project: str) -> str:
        return f"{self.url}{canonical_name(project)}/"

    def file_url(self, project: str, filename: str) -> str:
        path = f"/files/{canonical_name(project)}/{quote(filename)}"
        return f"{self.base_url}{path}" if self._server is not None else path

    # -- request log ---------------------------------------------------------

    def requested(self, fragment: str = "") -> List[str]:
        """Logged paths containing ``fragment`` (all paths when empty)."""
        with self._lock:
            return [p for p in self.requests_log if fragment in p]

    def downloaded(self) -> List[str]:
        """File names fetched under ``/files/``."""
        return [unquote(p.rsplit("/", 1)[-1]) for p in self.requested("/files/")]

    def clear_log(self) -> None:
        with self._lock:
            self.requests_log.clear()
            self.requests.clear()

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> "LocalIndex":
        if self._server is not None:
            return self
        self._stopping.clear()
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.index = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"LocalIndex:{server.server_address[1]}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "LocalIndex":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- used by the handler -------------------------------------------------

    def _snapshot_project(self, key: str) -> Optional[List[_File]]:
        with self._lock:
            files = self._projects.get(key)
            return None if files is None else list(files.values())

    def _lookup_file(self, project: str, filename: str) -> Optional[_File]:
        with self._lock:
            return self._projects.get(project, {}).get(filename)

    def _fault_for(self, table: Dict[str, _Fault], key: str) -> Optional[_Fault]:
        with self._lock:
            return table.get(key)

    def _log(self, method: str, path: str, accept: str, auth: str = "") -> None:
        with self._lock:
            self.requests_log.append(path)
            self.requests.append({"method": method, "path": path, "accept": accept, "auth": auth})

    def _project_names(self) -> List[str]:
        with self._lock:
            return sorted(self._projects)


def _wants_json(accept: str) -> bool:
    """True when ``Accept`` ranks the PEP 691 JSON type above every HTML type."""
    best_json, best_html = 0.0, 0.0
    for item in accept.split(","):
        fields = [f.strip() for f in item.split(";")]
        mime, q = fields[0].lower(), 1.0
        for param in fields[1:]:
            if param.startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = 0.0
        if mime == JSON_CONTENT_TYPE:
            best_json = max(best_json, q)
        elif mime in ("text/html", "application/vnd.pypi.simple.v1+html", "*/*"):
            best_html = max(best_html, q)
    return best_json > 0 and best_json >= best_html


class _Handler(BaseHTTPRequestHandler):
    server_version = "pip-variants-test-index/1"
    protocol_version = "HTTP/1.0"

    @property
    def index(self) -> LocalIndex:
        return self.server.index  # type: ignore[attr-defined]

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - keep test output clean
        pass

    def do_HEAD(self) -> None:
        self._dispatch(head=True)

    def do_GET(self) -> None:
        self._dispatch(head=False)

    # -- routing -------------------------------------------------------------

    def _dispatch(self, head: bool) -> None:
        path = urlsplit(self.path).path
        accept = self.headers.get("Accept", "")
        auth = self.headers.get("Authorization", "")
        self.index._log(self.command, path, accept, auth)
        creds = self.index.credentials
        if creds is not None:
            import base64

            expected = "Basic " + base64.b64encode(f"{creds[0]}:{creds[1]}".encode()).decode()
            if auth != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="test index"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        parts = [unquote(p) for p in path.split("/") if p]
        try:
            if parts == ["simple"]:
                self._root(accept, head)
            elif len(parts) == 2 and parts[0] == "simple":
                key = canonical_name(parts[1])
                if not path.endswith("/") or parts[1] != key:
                    self._redirect(f"/simple/{key}/")
                    return
                fault = self.index._fault_for(self.index._page_faults, key)
                body, ctype = self._project_page(key, accept)
                if body is None:
                    self._plain(404, b"no such project\n")
                elif fault is not None:
                    self._faulty(fault, body, ctype, head)
                else:
                    self._send(200, body, ctype, head)
            elif len(parts) == 3 and parts[0] == "files":
                entry = self.index._lookup_file(parts[1], parts[2])
                if entry is None and self.index.pep658 and parts[2].endswith(".metadata"):
                    wheel = self.index._lookup_file(parts[1], parts[2][: -len(".metadata")])
                    sidecar = wheel.core_metadata() if wheel is not None else None
                    if sidecar is not None:
                        self._send(200, sidecar, "application/octet-stream", head)
                        return
                if entry is None:
                    self._plain(404, b"no such file\n")
                    return
                ctype = (
                    "application/json"
                    if entry.filename.endswith(".json")
                    else "application/octet-stream"
                )
                fault = self.index._fault_for(self.index._faults, entry.filename)
                if fault is not None:
                    self._faulty(fault, entry.data, ctype, head)
                else:
                    self._send(200, entry.data, ctype, head)
            else:
                self._plain(404, b"not found\n")
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            self.close_connection = True

    def _root(self, accept: str, head: bool) -> None:
        names = self.index._project_names()
        if self._json(accept):
            body = json.dumps(
                {"meta": {"api-version": "1.0"}, "projects": [{"name": n} for n in names]}
            ).encode()
            self._send(200, body, JSON_CONTENT_TYPE, head)
        else:
            links = "\n".join(f'<a href="/simple/{n}/">{html.escape(n)}</a><br/>' for n in names)
            body = f"<!DOCTYPE html>\n<html><body>\n{links}\n</body></html>\n".encode()
            self._send(200, body, "text/html; charset=utf-8", head)

    def _json(self, accept: str) -> bool:
        if self.index.api == "auto":
            return _wants_json(accept)
        return self.index.api == "json"

    def _project_page(self, key: str, accept: str) -> Tuple[Optional[bytes], str]:
        files = self.index._snapshot_project(key)
        if files is None:
            return None, ""
        if self._json(accept):
            entries = []
            for f in files:
                digest = f.sha256()
                entry: dict = {
                    "filename": f.filename,
                    "url": f"/files/{key}/{quote(f.filename)}",
                    "hashes": {"sha256": digest} if digest else {},
                }
                if f.requires_python:
                    entry["requires-python"] = f.requires_python
                if f.yanked is not None:
                    entry["yanked"] = f.yanked or True
                sidecar = f.core_metadata() if self.index.pep658 else None
                if sidecar is not None:
                    entry["core-metadata"] = {"sha256": hashlib.sha256(sidecar).hexdigest()}
                entries.append(entry)
            body = json.dumps({"meta": {"api-version": "1.0"}, "name": key, "files": entries})
            return body.encode(), JSON_CONTENT_TYPE
        anchors = []
        for f in files:
            href = f"/files/{key}/{quote(f.filename)}"
            digest = f.sha256()
            if digest:
                href += f"#sha256={digest}"
            attrs = (
                f' data-requires-python="{html.escape(f.requires_python)}"'
                if f.requires_python
                else ""
            )
            if f.yanked is not None:
                attrs += f' data-yanked="{html.escape(f.yanked)}"'
            sidecar = f.core_metadata() if self.index.pep658 else None
            if sidecar is not None:
                digest = hashlib.sha256(sidecar).hexdigest()
                attrs += f' data-dist-info-metadata="sha256={digest}" data-core-metadata="sha256={digest}"'

            anchors.append(
                f'<a href="{html.escape(href)}"{attrs}>{html.escape(f.filename)}</a><br/>'
            )
        body = (
            '<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.0">'
            f"<title>Links for {html.escape(key)}</title></head><body>\n"
            f"<h1>Links for {html.escape(key)}</h1>\n" + "\n".join(anchors) + "\n</body></html>\n"
        )
        return body.encode(), "text/html; charset=utf-8"

    # -- responses -----------------------------------------------------------

    def _send(self, status: int, body: bytes, ctype: str, head: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _plain(self, status: int, body: bytes) -> None:
        self._send(status, body, "text/plain; charset=utf-8", False)

    def _redirect(self, location: str) -> None:
        self.send_response(301)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _faulty(self, fault: _Fault, body: bytes, ctype: str, head: bool) -> None:
        limit = self.index.max_fault_seconds
        seconds = min(fault.seconds if fault.seconds is not None else limit, limit)
        if fault.kind == "404":
            self._plain(404, b"injected 404\n")
        elif fault.kind == "500":
            self._plain(500, b"injected 500\n")
        elif fault.kind == "timeout":
            # Hold the connection without answering, then drop it.
            self.index._stopping.wait(seconds)
            self._abort()
        elif fault.kind == "reset":
            self._abort()
        elif fault.kind in ("cut", "cut-once", "short", "short-once"):
            # Headers and half the body, then a reset ("cut": a connection dropped
            # mid-download) or an orderly close ("short": a server or proxy that
            # gave up; urllib3 1.26 does not hold it to its Content-Length).
            if fault.kind in ("cut-once", "short-once"):
                with self.index._lock:
                    for table in (self.index._faults, self.index._page_faults):
                        for key in [k for k, f in table.items() if f is fault]:
                            del table[key]
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
            if fault.kind.startswith("short"):
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
            else:
                self._abort()
        elif fault.kind == "redirect-loop":
            self._redirect(self.path)  # to itself, for ever
        elif fault.kind == "redirect-file":
            self._redirect("file:///dev/null")  # off the web, onto this machine
        elif fault.kind == "garbage":
            junk = (b"\x00\xffgarbage{<" * (len(body) // 10 + 1))[: max(len(body), 64)]
            self._send(200, junk, ctype, head)
        elif fault.kind == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if head:
                return
            deadline = time.monotonic() + seconds
            for start in range(0, len(body), fault.chunk):
                if time.monotonic() >= deadline or self.index._stopping.is_set():
                    self._abort()  # bounded: give up, the client sees a short read
                    return
                self.wfile.write(body[start : start + fault.chunk])
                self.wfile.flush()
                self.index._stopping.wait(fault.delay)

    def _abort(self) -> None:
        """Close the socket without a (complete) response, with a TCP reset."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        try:
            self.connection.close()
        except OSError:
            pass
