"""A real HTTP server on loopback for the webhook tests: it records what is posted and
answers as told -- 200, an error status, garbage, or nothing until released."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class HookServer:
    """ANSWERS are used in turn, the last one for every request after: an int is a
    status, "garbage" a line that is not HTTP, "flood" a line without end, "hang" no
    answer until `release`."""

    answers: list[int | str] = field(default_factory=lambda: [200])
    received: list[Received] = field(default_factory=list)
    hanging: int = 0  # requests waiting for `release` now
    port: int = 0
    _released: asyncio.Event = field(default_factory=asyncio.Event)
    _arrived: asyncio.Condition = field(default_factory=asyncio.Condition)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def release(self) -> None:
        self._released.set()

    async def wait_for(self, count: int, timeout: float = 60.0) -> list[Received]:
        """Once COUNT requests have come (failing the test after TIMEOUT: a post may
        follow a mail's delivery and processing, slow on a loaded machine)."""
        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(lambda: len(self.received) >= count
                                                          or self.hanging >= count), timeout)
        return self.received

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await reader.readline()
            headers: dict[str, str] = {}
            while (line := await reader.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            answer = self.answers[min(len(self.received) + self.hanging,
                                      len(self.answers) - 1)]
            if answer == "hang":
                self.hanging += 1
                async with self._arrived:
                    self._arrived.notify_all()
                await self._released.wait()
                self.hanging -= 1
            path = request.split()[1].decode() if len(request.split()) > 1 else ""
            async with self._arrived:
                self.received.append(Received(path, headers, body))
                self._arrived.notify_all()
            if answer == "garbage":
                writer.write(b"SURPRISE! this is no HTTP\r\n\r\n")
            elif answer == "flood":  # a line without end
                writer.write(b"HTTP/1.1 200 " + b"x" * 100_000)
            elif isinstance(answer, int):
                writer.write(f"HTTP/1.1 {answer} X\r\nContent-Length: 0\r\n"
                             "Connection: close\r\n\r\n".encode())
            else:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def hook_server(*answers: int | str) -> AsyncIterator[HookServer]:
    hooks = HookServer(list(answers) or [200])
    server = await asyncio.start_server(hooks.handle, "127.0.0.1", 0)
    hooks.port = server.sockets[0].getsockname()[1]
    try:
        yield hooks
    finally:
        hooks.release()
        server.close()
        await server.wait_closed()
