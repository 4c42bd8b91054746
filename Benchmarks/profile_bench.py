#!/usr/bin/env python3
"""Where the time goes: `perf record -g` attached to `authflow serve` (SQLite store) while it does
whole sign-ins (Google OIDC + PKCE against one standalone `authflow sandbox`, one driver, as
signin_bench.py does) and while wrk drives `GET /auth/google/login` at 64 connections. Run by
Benchmarks/profile.sh (which installs and builds what it needs).

For each recording, `perf script` gives the share of the server's samples spent in the kernel and in user
space; the kernel share is broken down by system call (the `__x64_sys_NAME` frame of the call chain, or
what the chain shows instead when the kernel reaches the call's body by a tail call), the user share by
library (perf's dso). Shares become microseconds per operation through the server's CPU per operation,
from /proc/PID/stat over the same operations. Prints tables and one JSON object on its last line (also
written to Benchmarks/results/profile.json).

Reading the kernel rows: on loopback, `sendto` also carries the receiving side's TCP work (the segment
is delivered to the peer's socket in the sender's system call); samples are cpu-clock timer samples, so
time spent with interrupts off shows up where they are turned back on (`_raw_spin_unlock_irqrestore`),
still inside the right system call; in a VM, `fdatasync` includes the virtio disk's doorbell (a VM exit).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from benchlib import (CLIENT_CORE, SERVER_CORE, Browser, Processes, cpu_seconds, free_port, log, machine_load,
                      start_authflow, start_sandbox, write_result, wrk)

FREQUENCY = 4000  # samples per second of CPU time (cpu-clock: this works without a PMU, as in a VM)
TOP = 10
OUTSIDE_SYSCALLS = "(interrupts, faults)"
SYSCALL_FRAME = re.compile(r"^__(?:x64|ia32|se|do)_sys_(\w+)$")
# What a system call's body is named when the `__x64_sys_NAME` wrapper reached it by a tail call.
SYSCALL_BODY = re.compile(r"^(?:ksys|__sys|do_sys)_(\w+)$")
SYSCALL_ENTRY = ("do_syscall_64", "entry_SYSCALL_64", "entry_SYSCALL_64_after_hwframe")
FRAME = re.compile(r"^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)$")
HEADER = re.compile(r"^\s*(\d+)\s+(\d+)\s*$")  # tid, period (ns of cpu-clock)


def perf_problem() -> str | None:
    """Why `perf record -p` cannot profile another process here, or None when it can."""
    if shutil.which("perf") is None:
        return "perf is not installed: install Debian's linux-perf package (apt-get install linux-perf)"
    paranoid_file = Path("/proc/sys/kernel/perf_event_paranoid")
    paranoid = int(paranoid_file.read_text()) if paranoid_file.exists() else 2
    if os.geteuid() != 0 and paranoid > 1:
        return (f"perf cannot record the server's kernel samples as a normal user while "
                f"kernel.perf_event_paranoid is {paranoid}: run as root, or lower it to 1 "
                f"(sudo sysctl kernel.perf_event_paranoid=1)")
    with Processes() as processes:
        trial = processes.directory / "trial.data"
        try:
            result = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-g", "-F", str(FREQUENCY),
                                     "-o", str(trial), "--", "true"], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return "perf record did not finish a recording of `true` within 60 s"
        if result.returncode != 0:
            output = (result.stderr + result.stdout).strip().splitlines()[-5:]
            return "perf cannot record here: " + " / ".join(output)
    return None


class Recording:
    """`perf record -g` attached to one process (pinned to the client core), stopped with SIGINT."""

    def __init__(self, processes: Processes, pid: int, name: str):
        self.path = processes.directory / f"{name}.perf.data"
        self.name = name
        self.processes = processes
        self.child = processes.start(["perf", "record", "-e", "cpu-clock", "-g", "-F", str(FREQUENCY), "-p",
                                      str(pid), "-o", str(self.path)], f"perf-{name}", core=CLIENT_CORE)
        deadline = time.monotonic() + 30
        while not self.path.exists() or self.path.stat().st_size == 0:
            if self.child.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"perf record did not start{self.output()}")
            time.sleep(0.05)
        time.sleep(0.2)  # the events are opened before the header is written; this is margin, not a measure

    def output(self) -> str:
        return ":\n" + self.processes.output(f"perf-{self.name}")

    def stop(self) -> Path:
        self.child.send_signal(signal.SIGINT)
        try:
            self.child.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait(timeout=10)
            raise RuntimeError(f"perf record did not stop within 120 s of SIGINT{self.output()}")
        if self.child.returncode not in (0, 130, -signal.SIGINT):
            raise RuntimeError(f"perf record exited with {self.child.returncode}{self.output()}")
        return self.path


def samples(path: Path):
    """(period, frames) per sample of `perf script`, frames leaf first as (address, symbol, dso)."""
    try:
        script = subprocess.run(["perf", "script", "-i", str(path), "-F", "tid,period,ip,sym,dso"],
                                capture_output=True, text=True, errors="replace", timeout=600)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"perf script did not read {path.name} within 600 s") from None
    if script.returncode != 0:
        raise RuntimeError(f"perf script could not read {path.name}: {script.stderr.strip()[-500:]}")
    period, frames = None, []
    for line in script.stdout.splitlines():
        header = HEADER.match(line)
        if header:
            if period is not None:
                yield period, frames
            period, frames = int(header.group(2)), []
            continue
        frame = FRAME.match(line)
        if frame and period is not None:
            frames.append((int(frame.group(1), 16), frame.group(2), frame.group(3)))
    if period is not None:
        yield period, frames


def in_kernel(frame: tuple[int, str, str]) -> bool:
    address, _, dso = frame
    return dso.startswith("[kernel") or address >= 0xFFFF800000000000


def user_function_name(symbol: str) -> str:
    """libc's wrapper of a system call, without glibc's internal prefixes: `__GI___libc_write` → `write`."""
    for prefix in ("__GI_", "__libc_", "__"):
        if symbol.startswith(prefix):
            symbol = symbol[len(prefix):]
    return symbol.lstrip("_")


def syscall_name(kernel: list[tuple[int, str, str]], user: list[tuple[int, str, str]]) -> str:
    symbols = [symbol for _, symbol, _ in kernel]
    for symbol in symbols:
        match = SYSCALL_FRAME.match(symbol)
        if match:
            return match.group(1)
    entry = next((index for index, symbol in enumerate(symbols) if symbol in SYSCALL_ENTRY), None)
    if entry is None:
        return OUTSIDE_SYSCALLS
    if entry > 0:
        match = SYSCALL_BODY.match(symbols[entry - 1])
        if match:
            return match.group(1)
    if user and user[0][1] != "[unknown]":
        return user_function_name(user[0][1])
    return "(system call perf cannot name)"


def library(dso: str) -> str:
    return "(unknown)" if dso in ("", "[unknown]") else Path(dso).name


def breakdown(path: Path, cpu_us_per_operation: float) -> dict:
    """Kernel and user shares of the recording, by system call and by library, in % and µs per operation."""
    total = kernel_total = 0
    syscalls: Counter[str] = Counter()
    libraries: Counter[str] = Counter()
    count = 0
    for period, frames in samples(path):
        count += 1
        total += period
        kernel = [frame for frame in frames if in_kernel(frame)]
        user = [frame for frame in frames if not in_kernel(frame)]
        if frames and in_kernel(frames[0]):
            kernel_total += period
            syscalls[syscall_name(kernel, user)] += period
        else:
            libraries[library(frames[0][2]) if frames else "(unknown)"] += period
    if total == 0:
        raise RuntimeError(f"perf recorded no samples of the server in {path.name}")

    def rows(counter: Counter[str]) -> list[dict]:
        return [{"name": name, "percent": round(100 * value / total, 1),
                 "us": round(cpu_us_per_operation * value / total, 1)} for name, value in counter.most_common(TOP)]

    return {"samples": count, "kernel_percent": round(100 * kernel_total / total, 1),
            "user_percent": round(100 * (total - kernel_total) / total, 1),
            "syscalls": rows(syscalls), "libraries": rows(libraries)}


def profile_signins(processes: Processes, browser: Browser, pid: int, url: str, count: int) -> tuple[dict, Path]:
    login = f"{url}/auth/google/login?return_to=/"
    for index in range(5):  # warm-up: JWKS fetched, connections open, statements prepared
        browser.sign_in(login, subject=str(10**20 + index))
    recording = Recording(processes, pid, "signin")
    cpu_before, started = cpu_seconds([pid]), time.monotonic()
    for index in range(count):
        browser.sign_in(login, subject=str(10**20 + 100 + index))
    elapsed, cpu = time.monotonic() - started, cpu_seconds([pid]) - cpu_before
    path = recording.stop()
    cpu_us = cpu * 1e6 / count
    run = {"operation": "sign-in", "operations": count, "per_s": round(count / elapsed, 1),
           "cpu_us_per_op": round(cpu_us, 1)}
    return run | breakdown(path, cpu_us), path


def profile_logins(processes: Processes, pid: int, url: str, seconds: float) -> tuple[dict, Path]:
    login = f"{url}/auth/google/login?return_to=/"
    wrk(login, 1, 64)  # warm-up
    recording = Recording(processes, pid, "login")
    cpu_before = cpu_seconds([pid])
    run = wrk(login, seconds, 64)
    cpu = cpu_seconds([pid]) - cpu_before
    path = recording.stop()
    if run["non_2xx_3xx"]:
        raise RuntimeError(f"GET /auth/google/login: {run['non_2xx_3xx']} answers were not 2xx/3xx")
    answered = run["rps"] * max(1, round(seconds))  # wrk's rate is its request count over its duration
    cpu_us = cpu * 1e6 / answered
    result = {"operation": "request", "operations": round(answered), "per_s": round(run["rps"]),
              "cpu_us_per_op": round(cpu_us, 1)}
    return result | breakdown(path, cpu_us), path


def print_run(title: str, run: dict) -> None:
    unit = f"µs/{run['operation']}"
    print(f"\n{title}: {run['per_s']:,} {run['operation']}s/s, server CPU {run['cpu_us_per_op']:,.1f} µs per "
          f"{run['operation']}; {run['samples']:,} samples: kernel {run['kernel_percent']:.1f} %, user "
          f"{run['user_percent']:.1f} %")
    for heading, key in (("kernel, by system call", "syscalls"), ("user, by library", "libraries")):
        print(f"  {heading:<34}{'%':>7}{unit:>16}")
        for row in run[key]:
            print(f"  {row['name'][:34]:<34}{row['percent']:>7.1f}{row['us']:>16,.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", help="the release authflow binary")
    parser.add_argument("--signins", type=int, default=300, help="sign-ins recorded")
    parser.add_argument("--seconds", type=float, default=5, help="seconds of logins at 64 connections recorded")
    parser.add_argument("--keep", help="a directory to copy the perf.data files into (for perf report)")
    parser.add_argument("--check-perf", action="store_true", help="only check that perf can record, then exit")
    args = parser.parse_args()
    problem = perf_problem()
    if problem:
        print(f"profile: {problem}", file=sys.stderr)
        sys.exit(2)
    if args.check_perf:
        return
    if not args.authflow or args.signins < 1 or args.seconds < 1:
        parser.error("--authflow is required, --signins must be at least 1 and --seconds at least 1")
    load_before = machine_load()

    with Processes() as processes:
        ports = {"signin": free_port(), "login": free_port()}
        sandbox = start_sandbox(processes, args.authflow,
                                [f"http://127.0.0.1:{port}/auth/{{provider}}/callback" for port in ports.values()],
                                core=CLIENT_CORE)
        servers = {name: start_authflow(processes, args.authflow, sandbox, "sqlite", f"authflow-{name}", port=port)
                   for name, port in ports.items()}
        log(f"perf record: {args.signins} sign-ins")
        signin_server, signin_url = servers["signin"]
        signin, signin_data = profile_signins(processes, Browser(sandbox), signin_server.pid, signin_url,
                                              args.signins)
        log(f"perf record: GET /auth/google/login at 64 connections for {args.seconds:g} s")
        login_server, login_url = servers["login"]
        login, login_data = profile_logins(processes, login_server.pid, login_url, args.seconds)
        if args.keep:
            keep = Path(args.keep)
            keep.mkdir(parents=True, exist_ok=True)
            for data in (signin_data, login_data):
                shutil.copyfile(data, keep / data.name)

    print_run("whole sign-ins (SQLite store)", signin)
    print_run("GET /auth/google/login at 64 connections (SQLite store)", login)
    load = {"before": load_before, "after": machine_load()}
    print(f"\n(perf record -g -F {FREQUENCY} -e cpu-clock on the server; server on core {SERVER_CORE}, perf, "
          f"sandbox, driver and wrk -t1 on core {CLIENT_CORE}; µs = share × the server's CPU per operation "
          f"from /proc/PID/stat; load average {load['before']} before, {load['after']} after)")
    result = {"benchmark": "profile", "signins": args.signins, "seconds": args.seconds, "frequency": FREQUENCY,
              "load": load, "runs": {"signin": signin, "login_64": login}}
    write_result("profile", result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
