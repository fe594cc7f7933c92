#!/usr/bin/env python3
"""Benchmark `advisor server` as an editor drives it: a real LSP client over stdio.

Measures:
  - first diagnostics for a 1,000-line file, from sending `didOpen` to receiving
    `publishDiagnostics`: right after `initialized` (cold: libcst still loading) and
    in a running server (warm; median and worst of --repeat files);
  - an edit in a big file (--big-lines) while other files are open: its time, and that
    only that buffer was analysed again (the server's `advisor/status` counts analyses);
  - the server's resident memory (VmRSS) over --edits edits of an --edit-lines file, each
    edit analysed (debounce 0) and every 50th followed by a quick-fix request.

    python benchmarks/bench_server.py [--repeat 5] [--edits 1000] [--edit-lines 200] [--big-lines 20000] [--json out.json]

Wall times include waiting for the CPU on a loaded machine; the server's own CPU time
(from /proc) is printed next to them.

Needs the `server` extra (pygls's client drives the server).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

BLOCK = '''\
def train_step_{i}(model, batch, optimizer, scaler):
    """Step {i}: mixed precision forward and backward."""
    inputs, targets = batch
    with torch.cuda.amp.autocast(dtype=torch.bfloat16):
        outputs = model(inputs)
        loss = torch.nn.functional.cross_entropy(outputs, targets)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    stats_{i} = {{"loss": loss.item(), "step": {i}}}
    if stats_{i}["loss"] > 10.0:
        print("diverging at", {i})
    values = [x * 2 for x in range(16)]
    total = sum(values) + {i}
    return stats_{i}, total


'''
HEADER = "import torch\nimport torch.nn.functional\n\nscaler = torch.cuda.amp.GradScaler()\n\n\n"


def source(lines: int, every: int = 1) -> str:
    """A training module of about `lines` lines; every `every`-th step uses the deprecated autocast."""
    blocks = []
    i = 0
    while len(HEADER.splitlines()) + 18 * len(blocks) < lines:
        block = BLOCK.format(i=i)
        if i % every:
            block = block.replace("torch.cuda.amp.autocast(", "torch.amp.autocast('cuda', ")
        blocks.append(block)
        i += 1
    return HEADER + "".join(blocks)


def cpu_s(pid: int) -> float:
    """CPU time (user + system) the process has used: unlike wall time, not inflated by other load."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


class Session:
    def __init__(self, root: Path, debounce_ms: int) -> None:
        self.root = root
        self.debounce_ms = debounce_ms
        self.client = LanguageClient("bench-server", "1")
        self.arrived: dict[str, asyncio.Future] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _published(params: types.PublishDiagnosticsParams) -> None:
            fut = self.arrived.get(params.uri)
            if fut is not None and not fut.done() and (params.version is None or params.version >= fut.version):
                fut.set_result((time.perf_counter(), params))

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "advisor", "server")
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                process_id=os.getpid(),
                root_uri=self.root.as_uri(),
                initialization_options={"debounceMs": self.debounce_ms},
            )
        )
        self.client.initialized(types.InitializedParams())

    @property
    def pid(self) -> int:
        return self.client._server.pid

    def expect(self, uri: str, version: int) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        fut.version = version
        self.arrived[uri] = fut
        return fut

    async def open(self, path: Path, text: str) -> tuple[float, types.PublishDiagnosticsParams]:
        uri = path.as_uri()
        fut = self.expect(uri, 1)
        c0 = cpu_s(self.pid)
        t0 = time.perf_counter()
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        t1, params = await asyncio.wait_for(fut, 120)
        self.last_cpu = cpu_s(self.pid) - c0
        return t1 - t0, params

    async def edit(
        self, uri: str, version: int, line: int, new_text: str, end_line: int | None = None
    ) -> tuple[float, types.PublishDiagnosticsParams]:
        """Replace lines `line` up to `end_line` (default: none, an insertion) with `new_text`."""
        fut = self.expect(uri, version)
        c0 = cpu_s(self.pid)
        t0 = time.perf_counter()
        start = types.Position(line=line, character=0)
        end = types.Position(line=line if end_line is None else end_line, character=0)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end), text=new_text)
                ],
            )
        )
        t1, params = await asyncio.wait_for(fut, 120)
        self.last_cpu = cpu_s(self.pid) - c0
        return t1 - t0, params

    async def analyses(self) -> dict[str, int]:
        status = await self.client.protocol.send_request_async("advisor/status", None)
        return {uri: n for uri, n in status.analyses}

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client._server.wait()
        await self.client.stop()


async def run(args) -> dict:
    out: dict = {"python": sys.version.split()[0], "machine": platform.machine(), "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "pyproject.toml").write_text('[project]\nname = "bench"\n\n[tool.advisor]\ntarget-version = "2.12"\n')
        text = source(1000)
        out["file_lines"] = len(text.splitlines())

        if args.only == "memory":
            return await memory(args, root, out)

        # 1. cold: the file arrives right after `initialized`, while libcst is still loading.
        s = Session(root, 0)
        t0 = time.perf_counter()
        await s.start()
        out["initialize_s"] = round(time.perf_counter() - t0, 3)
        cold, params = await s.open(root / "cold.py", text)
        out["cold_first_diagnostics_s"] = round(cold, 3)
        out["diagnostics_per_file"] = len(params.diagnostics)

        # 2. warm: a running server, a newly opened file; dense (a finding every 18 lines) and typical (a few).
        for label, body in (("dense", text), ("typical", source(1000, every=20))):
            times, cpus, count = [], [], 0
            for i in range(args.repeat):
                t, params = await s.open(root / f"{label}{i}.py", body)
                count = len(params.diagnostics)
                times.append(t)
                cpus.append(s.last_cpu)
            out[f"warm_first_diagnostics_s_{label}"] = {
                "median": round(statistics.median(times), 3),
                "max": round(max(times), 3),
                "server_cpu_median": round(statistics.median(cpus), 3),
                "diagnostics": count,
            }

        # 3. an edit in a big file re-analyses that buffer only.
        big = source(args.big_lines)
        t_big, _ = await s.open(root / "big.py", big)
        out["big_file_lines"] = len(big.splitlines())
        out["big_file_open_s"] = round(t_big, 3)
        out["big_file_open_server_cpu_s"] = round(s.last_cpu, 3)
        before = await s.analyses()
        t_edit, _ = await s.edit((root / "big.py").as_uri(), 2, 5, "x = 1\n")
        after = await s.analyses()
        delta = [uri for uri, n in after.items() if n != before.get(uri, 0)]
        out["big_file_edit_s"] = round(t_edit, 3)
        out["big_file_edit_server_cpu_s"] = round(s.last_cpu, 3)
        out["big_file_edit_reanalysed"] = [Path(u).name for u in delta]
        await s.stop()
        return await memory(args, root, out)


async def memory(args, root: Path, out: dict) -> dict:
    """4. The server's RSS over many edits, each analysed."""
    s = Session(root, 0)
    await s.start()
    path = root / "edited.py"
    await s.open(path, source(args.edit_lines))
    uri = path.as_uri()
    samples = [(0, rss_kib(s.pid))]
    edit_times = []
    for n in range(1, args.edits + 1):
        # Alternately insert a line in a function body and delete it again: the text keeps its size.
        if n % 2:
            t, _ = await s.edit(uri, n + 1, 8, f"    counter_{n} = {n}\n")
        else:
            t, _ = await s.edit(uri, n + 1, 8, "", end_line=9)
        edit_times.append(t)
        if n % 50 == 0:
            await s.client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=types.Range(
                        start=types.Position(line=9, character=0), end=types.Position(line=9, character=40)
                    ),
                    context=types.CodeActionContext(diagnostics=[]),
                )
            )
        if n % 100 == 0:
            samples.append((n, rss_kib(s.pid)))
    await s.stop()
    out["edits"] = args.edits
    out["edited_file_lines"] = args.edit_lines
    out["edit_to_diagnostics_s"] = {"median": round(statistics.median(edit_times), 3), "max": round(max(edit_times), 3)}
    out["rss_mib_by_edits"] = {n: round(kib / 1024, 1) for n, kib in samples}
    steady = [kib for n, kib in samples if n >= 100]
    out["rss_growth_mib_after_first_100_edits"] = round((steady[-1] - steady[0]) / 1024, 1) if len(steady) > 1 else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--edit-lines", type=int, default=200)
    parser.add_argument("--big-lines", type=int, default=20000)
    parser.add_argument("--only", choices=("memory",), help="run only the memory part")
    parser.add_argument("--json")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    for key, value in result.items():
        print(f"{key:42} {value}")
    for label in ("dense", "typical") if args.only is None else ():
        r = result[f"warm_first_diagnostics_s_{label}"]
        print(
            f"first diagnostics, {label} {result['file_lines']}-line file: median {r['median']} s wall, "
            f"{r['server_cpu_median']} s server CPU (target 0.5 s): {'met' if r['median'] <= 0.5 else 'NOT met'} on this machine now "
            f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
