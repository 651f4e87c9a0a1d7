"""nccl-timeout: a Codex session chasing a 2-node NCCL watchdog timeout through NCCL env vars.
It ends unresolved. Transcript plus the node-0 training log."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import fmt_codex
from casefile import dump, line_of, seqs
from story import Call, Item, Turn, User, events, turn_times

DIR = "nccl-timeout"
START = datetime(2026, 3, 12, 16, 40, 5, 902000, tzinfo=UTC)
SID = fmt_codex.session_id("nccl-timeout")
CWD = "/home/ops/llm-train"
N0, N1 = "gpu-a01", "gpu-a02"


def _e(node: str, pid: int, tid: int, rank: int, msg: str) -> str:
    return f"{node}:{pid}:{tid} [{rank}] {msg}"


def train_log() -> str:
    """torchrun output of rank 0-7 on gpu-a01 from the failed run (logs/run_0312/node0.log)."""
    lines = [
        "W0312 15:58:11.204000 118201 torch/distributed/run.py:792] ",
        "W0312 15:58:11.204000 118201 torch/distributed/run.py:792] *****************************************",
        "W0312 15:58:11.204000 118201 torch/distributed/run.py:792] Setting OMP_NUM_THREADS environment variable "
        "for each process to be 1 in default, to avoid your system being overloaded, please further tune the "
        "variable for optimal performance in your application as needed. ",
        "W0312 15:58:11.204000 118201 torch/distributed/run.py:792] *****************************************",
        "[2026-03-12 15:58:19,882] [INFO] [train.py:88] world_size=16 rank=0 local_rank=0 master=10.40.1.11:29500",
        "[2026-03-12 15:58:20,017] [INFO] [train.py:102] building model llama-7b (fsdp, bf16)",
    ]
    for r in range(8):
        ran = 600000 if r == 0 else 600000 + 7 * r + 3
        lines.append(f"[rank{r}]:[E312 16:08:21.{913402 + 977 * r:06d} ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog "
                     "caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, "
                     f"NumelOut=1, Timeout(ms)=600000) ran for {ran} milliseconds before timing out.")
    for r in range(8):
        lines.append(f"[rank{r}]:[E312 16:08:21.{914880 + 977 * r:06d} ProcessGroupNCCL.cpp:2268] [PG ID 0 PG GUID "
                     f"0(default_pg) Rank {r}]  failure detected by watchdog at work sequence id: 1 PG status: "
                     "last enqueued work: 1, last completed work: -1")
    lines += [
        "[rank0]:[E312 16:08:21.916011 ProcessGroupNCCL.cpp:670] Stack trace of the failed collective not found, "
        "potentially because FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE "
        "to a non-zero value.",
        "[rank0]:[E312 16:08:21.916203 ProcessGroupNCCL.cpp:684] [Rank 0] Some NCCL operations have failed or "
        "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
        "corrupted/incomplete data.",
        "[rank0]:[E312 16:08:21.916214 ProcessGroupNCCL.cpp:698] [Rank 0] To avoid data inconsistency, we are "
        "taking the entire process down.",
        "[rank0]:[E312 16:08:21.919644 ProcessGroupNCCL.cpp:1906] [PG ID 0 PG GUID 0(default_pg) Rank 0] Process "
        "group watchdog thread terminated with exception: [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600000 "
        "milliseconds before timing out.",
        "W0312 16:08:23.557000 118201 torch/distributed/elastic/multiprocessing/api.py:900] Sending process "
        "118274 closing signal SIGTERM",
        "E0312 16:08:24.106000 118201 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: -6) "
        "local_rank: 0 (pid: 118273) of binary: /opt/venv/bin/python",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2026-03-12_16:08:23",
        "  host      : gpu-a01",
        "  rank      : 0 (local_rank: 0)",
        "  exitcode  : -6 (pid: 118273)",
        "  error_file: <N/A>",
        "  traceback : Signal 6 (SIGABRT) received by PID 118273",
        "============================================================",
    ]
    return "\n".join(lines) + "\n"


SMOKE = ("torchrun --nnodes 2 --nproc-per-node 8 --node-rank {rank} --master-addr 10.40.1.11 --master-port 29511 "
         "scripts/nccl_smoke.py --timeout 120")


def smoke(envs: str) -> str:
    inner = "cd ~/llm-train && {e}" + SMOKE
    a = inner.format(e=envs, rank=0)
    b = inner.format(e=envs, rank=1)
    return (f"ssh {N1} '{b}' > /tmp/nccl_smoke_{N1}.log 2>&1 & ssh {N0} '{a}' > /tmp/nccl_smoke_{N0}.log 2>&1; "
            "wait; grep -hE \"NCCL WARN|Bootstrap :|NET/|Watchdog caught|all_reduce ok\" /tmp/nccl_smoke_*.log "
            "| sort | uniq | head -40")


BOOT_DOCKER = "\n".join([
    _e(N0, 140112, 140112, 0, "NCCL INFO Bootstrap : Using docker0:172.17.0.1<0>"),
    _e(N0, 140112, 140112, 0, "NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin."),
    _e(N0, 140112, 140112, 0, "NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE "
                              "[3]mlx5_3:1/RoCE [RO]; OOB docker0:172.17.0.1<0>"),
    _e(N1, 93817, 93817, 0, "NCCL INFO Bootstrap : Using ens1f0np0:10.40.1.12<0>"),
    _e(N1, 93817, 93817, 0, "NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE "
                            "[3]mlx5_3:1/RoCE [RO]; OOB ens1f0np0:10.40.1.12<0>"),
    _e(N1, 93817, 94002, 0, "NCCL WARN socketStartConnect: Connect to 172.17.0.1<45213> failed : Connection refused"),
    _e(N1, 93817, 94002, 0, "NCCL WARN bootstrap.cc:138 -> 6"),
    "[rank8]:[E312 16:51:47.201934 ProcessGroupNCCL.cpp:632] [Rank 8] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=120000) ran for 120000 "
    "milliseconds before timing out.",
    "[rank0]:[E312 16:51:47.198410 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=120000) ran for 120000 "
    "milliseconds before timing out.",
])

ROCE_FAIL = "\n".join([
    _e(N0, 141377, 141377, 0, "NCCL INFO Bootstrap : Using ens1f0np0:10.40.1.11<0>"),
    _e(N0, 141377, 141377, 0, "NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE "
                              "[3]mlx5_3:1/RoCE [RO]; OOB ens1f0np0:10.40.1.11<0>"),
    _e(N0, 141377, 141598, 7, "NCCL WARN NET/IB : Got completion from peer 10.40.2.12<51244> with status=12 "
                              "opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:10.40.2.11 remoteGids"
                              "::ffff:10.40.2.12 hca mlx5_3"),
    _e(N0, 141377, 141598, 7, "NCCL WARN transport/net.cc:1329 -> 6"),
    _e(N1, 94410, 94410, 0, "NCCL INFO Bootstrap : Using ens1f0np0:10.40.1.12<0>"),
    _e(N1, 94410, 94410, 0, "NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE "
                            "[3]mlx5_3:1/RoCE [RO]; OOB ens1f0np0:10.40.1.12<0>"),
    "[rank0]:[E312 16:58:32.774310 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=120000) ran for 120011 "
    "milliseconds before timing out.",
])

SOCKET_FAIL = "\n".join([
    _e(N0, 142003, 142003, 0, "NCCL INFO Bootstrap : Using ens1f0np0:10.40.1.11<0>"),
    _e(N0, 142003, 142003, 0, "NCCL INFO NET/Socket : Using [0]ens1f0np0:10.40.1.11<0>"),
    _e(N0, 142003, 142003, 0, "NCCL INFO Using network Socket"),
    _e(N1, 95021, 95021, 0, "NCCL INFO Bootstrap : Using ens1f0np0:10.40.1.12<0>"),
    _e(N1, 95021, 95021, 0, "NCCL INFO NET/Socket : Using [0]ens1f0np0:10.40.1.12<0>"),
    _e(N1, 95021, 95244, 0, "NCCL WARN socketProgressOpt: Call to recv from 10.40.1.11<41877> failed : "
                            "Connection timed out"),
    _e(N1, 95021, 95244, 0, "NCCL WARN transport/net_socket.cc:580 -> 6"),
    "[rank0]:[E312 17:05:10.118204 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=120000) ran for 120004 "
    "milliseconds before timing out.",
])

P2P_FAIL = SOCKET_FAIL.replace("142003", "142781").replace("95021", "95530").replace("95244", "95702") \
    .replace("17:05:10.118204", "17:10:41.530917").replace("120004", "120009")

LINKS = """ens1f0np0        UP             10.40.1.11/24
ens1f1np1        UP             10.40.2.11/24
docker0          UP             172.17.0.1/16
---
ens1f0np0        UP             10.40.1.12/24
ens1f1np1        UP             10.40.2.12/24
---
2: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000
2: ens1f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000"""

PING = """PING 10.40.1.12 (10.40.1.12) 1472(1500) bytes of data.
1480 bytes from 10.40.1.12: icmp_seq=1 ttl=64 time=0.118 ms
1480 bytes from 10.40.1.12: icmp_seq=2 ttl=64 time=0.097 ms
1480 bytes from 10.40.1.12: icmp_seq=3 ttl=64 time=0.101 ms

--- 10.40.1.12 ping statistics ---
3 packets transmitted, 3 received, 0% packet loss, time 2034ms
rtt min/avg/max/mdev = 0.097/0.105/0.118/0.009 ms
---
PING 10.40.1.12 (10.40.1.12) 8972(9000) bytes of data.

--- 10.40.1.12 ping statistics ---
3 packets transmitted, 0 received, 100% packet loss, time 2047ms"""


def build() -> list[Item]:
    items: list[Item] = [User(0, "our 2-node run (gpu-a01 + gpu-a02, 8x H100 each) hangs at startup and dies after "
                                 "10 min with an NCCL watchdog timeout. single-node runs are fine. log from the "
                                 "last attempt is logs/run_0312/node0.log. can you figure out what's wrong? you "
                                 "can ssh to both nodes.", key="goal")]
    clock = [0.0]

    def turn(gap: float, key: str, cmd: str | None, out: str = "", code: int = 0, dur: float = 1.0,
             thinking: str | None = None, text: str | None = None, timeout_ms: int | None = None) -> Turn:
        calls = [Call(cmd, out, exit_code=code, duration=dur, key=key, timeout_ms=timeout_ms)] if cmd else []
        t = Turn(at=clock[0] + gap, thinking=thinking, text=text, calls=calls, key=key)
        items.append(t)
        clock[0] = (turn_times(START, t)["end"] - START).total_seconds()
        return t

    log = train_log()
    turn(7, "log", "tail -n 24 logs/run_0312/node0.log", "\n".join(log.rstrip("\n").split("\n")[-24:]), dur=0.2,
         thinking="**Reading the failed run's log**\n\nStart with the node-0 log the user pointed at.")
    turn(9, "links", f"ssh {N0} 'ip -br addr | grep -E \"ens|docker|ib\"'; echo ---; ssh {N1} 'ip -br addr | grep "
         f"-E \"ens|docker|ib\"'; echo ---; ssh {N0} 'ip link show ens1f0np0'; ssh {N1} 'ip link show ens1f0np0'",
         LINKS, dur=1.3,
         thinking="**Interpreting the timeout**\n\nEvery local rank times out on SeqNum=1, an ALLREDUCE of 1 "
                  "element: the very first collective (the barrier after init) never completed, and 'last "
                  "completed work: -1'. That points at connectivity between the nodes rather than a hang in the "
                  "training code. Look at the interfaces on both nodes.")
    turn(14, "debug", smoke("NCCL_DEBUG=INFO "), BOOT_DOCKER, dur=131.8, timeout_ms=300000,
         thinking="**Reproducing with NCCL_DEBUG**\n\ngpu-a01 has a docker0 bridge (172.17.0.1) that gpu-a02 "
                  "doesn't. Reproduce with a small all_reduce smoke test (120 s timeout) and NCCL_DEBUG=INFO to see "
                  "which interfaces NCCL picks.",
         text="Reproducing with a 2-node all_reduce smoke test and NCCL_DEBUG=INFO.")
    turn(21, "ifname", smoke("NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ens1f0np0 "), ROCE_FAIL, dur=132.4,
         timeout_ms=300000,
         thinking="**Fixing the bootstrap interface**\n\nFound one problem: gpu-a01 bootstraps on docker0 "
                  "(172.17.0.1), an address gpu-a02 can't reach, so gpu-a02's connect is refused. Pin "
                  "NCCL_SOCKET_IFNAME=ens1f0np0 on both nodes.",
         text="gpu-a01 picks `docker0` for NCCL's bootstrap and gpu-a02 can't reach 172.17.0.1. Pinning "
              "`NCCL_SOCKET_IFNAME=ens1f0np0` and rerunning.")
    turn(19, "noib", smoke("NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ens1f0np0 NCCL_IB_DISABLE=1 "), SOCKET_FAIL,
         dur=131.1, timeout_ms=300000,
         thinking="**Isolating the RoCE transport**\n\nBootstrap now uses ens1f0np0 on both nodes and the docker0 "
                  "error is gone, but the collective still times out. The new warning is a RoCE send completion "
                  "with status=12 (retry exceeded) on mlx5_3. Take RDMA out of the picture: NCCL_IB_DISABLE=1 "
                  "forces plain TCP sockets. If that works, the problem is in the RoCE fabric.")
    turn(24, "nop2p", smoke("NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=ens1f0np0 NCCL_IB_DISABLE=1 NCCL_P2P_DISABLE=1 "),
         P2P_FAIL, dur=131.5, timeout_ms=300000,
         thinking="**Ruling out intra-node P2P**\n\nSockets fail too: gpu-a02's recv from gpu-a01 times out. So "
                  "it isn't RDMA-specific. Unlikely, but rule out intra-node P2P as well with NCCL_P2P_DISABLE=1.")
    turn(22, "mtu", f"ssh {N0} 'ping -c 3 -M do -s 1472 10.40.1.12; echo ---; ping -c 3 -M do -s 8972 10.40.1.12'",
         PING, code=1, dur=4.3,
         thinking="**Checking the path MTU**\n\nNo change, as expected. Small messages (bootstrap) get through, "
                  "data transfers stall on both RoCE and TCP. Both NICs are configured with MTU 9000; check whether "
                  "9000-byte frames actually cross the switch, with don't-fragment pings.")
    turn(31, "summary", None, text=SUMMARY,
         thinking="**Summarizing without a fix**\n\nFull-size 1500-byte frames pass, 9000-byte frames are dropped: "
                  "the hosts use jumbo frames but something on the path probably doesn't. That would explain "
                  "bootstrap working and bulk transfers stalling. I can't change the switch, and changing host MTU "
                  "needs the user's OK, so report what I found and what to try.")
    return items


SUMMARY = """I haven't been able to fix this; here is where it stands.

**Found and fixed**
- `gpu-a01` chose `docker0` (172.17.0.1) for NCCL's bootstrap, which `gpu-a02` can't reach (`socketStartConnect: Connect to 172.17.0.1<45213> failed : Connection refused`). `NCCL_SOCKET_IFNAME=ens1f0np0` fixes that part; keep it in the launch script.

**Still failing**
- With the right interface, the first `ALLREDUCE` (SeqNum=1) still times out: over RoCE (`NET/IB : Got completion … status=12 … vendor err 129`, i.e. retry exceeded), and over plain TCP with `NCCL_IB_DISABLE=1` (`socketProgressOpt: Call to recv … failed : Connection timed out`). `NCCL_P2P_DISABLE=1` changes nothing, so it isn't intra-node.

**Likely cause (not confirmed)**
- Both hosts have MTU 9000 on `ens1f0np0`, but don't-fragment pings of 8972 bytes get 100% loss while 1472-byte pings pass. The switch path is probably at MTU 1500, so small control messages get through and bulk transfers are dropped.

**Next steps**
1. Ask whoever owns the switch to check the MTU on the ports of gpu-a01/gpu-a02 (and the RoCE VLAN), or
2. as a test, set `ip link set ens1f0np0 mtu 1500` (and the RoCE ports) on both nodes and rerun `scripts/nccl_smoke.py`;
3. then run `all_reduce_perf` from nccl-tests across the two nodes before retrying the training job."""


def files() -> dict[str, str]:
    items = build()
    name = fmt_codex.rollout_name(START, SID)
    log = train_log()
    return {f"{DIR}/{name}": fmt_codex.render(items, START, session=SID, cwd=CWD, branch="main"),
            f"{DIR}/node0.log": log,
            f"{DIR}/case.yaml": dump(case(items, log, name))}


def case(items: list[Item], log: str, name: str) -> dict[str, Any]:
    evs = events(items, START)
    per = {"codex": evs}

    def s(key: str) -> dict[str, int]:
        return seqs(per, key)

    def env(key: str, subject: str, value: str) -> dict[str, Any]:
        return {"kind": "env_set", "subject": subject, "value": value, "seq": s(key + ":call")}

    return {
        "case": "nccl-timeout",
        "description": "Codex session: a 2-node (2x8 H100) torchrun job dies with an NCCL watchdog timeout on its "
                       "first ALLREDUCE. The agent reproduces it with a smoke test and NCCL_DEBUG=INFO, fixes a "
                       "docker0 bootstrap interface with NCCL_SOCKET_IFNAME, then tries NCCL_IB_DISABLE=1 and "
                       "NCCL_P2P_DISABLE=1 without success; it ends unresolved with an MTU hypothesis.",
        "files": {"codex": name, "torchrun-log": "node0.log"},
        "events": {"codex": len(evs)},
        "tool_calls": {"codex": sum(1 for e in evs if e.kind == "tool_call")},
        "goal": "Make the 2-node training run (gpu-a01 + gpu-a02) get past NCCL initialisation.",
        "chain": [
            {"category": "nccl_timeout",
             "pattern_hint": "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE",
             "first_seq": s("log:result"),
             "first_line": {"torchrun-log": line_of(log, "ran for 600000 milliseconds before timing out")},
             "attempts": [env("debug", "NCCL_DEBUG", "INFO"), env("ifname", "NCCL_SOCKET_IFNAME", "ens1f0np0"),
                          env("noib", "NCCL_IB_DISABLE", "1"), env("nop2p", "NCCL_P2P_DISABLE", "1")],
             "resolved_by": None},
            {"category": "nccl_error", "pattern_hint": "NCCL WARN socketStartConnect: Connect to 172.17.0.1",
             "first_seq": s("debug:result"),
             "revealed_by": env("debug", "NCCL_DEBUG", "INFO"),
             "resolved_by": env("ifname", "NCCL_SOCKET_IFNAME", "ens1f0np0")},
            {"category": "nccl_error", "pattern_hint": "NCCL WARN NET/IB : Got completion from peer",
             "first_seq": s("ifname:result"),
             "revealed_by": env("ifname", "NCCL_SOCKET_IFNAME", "ens1f0np0"),
             "resolved_by": None,
             "note": "disappears with NCCL_IB_DISABLE=1 only because RoCE is no longer used"},
            {"category": "nccl_error", "pattern_hint": "NCCL WARN socketProgressOpt: Call to recv",
             "first_seq": s("noib:result"),
             "revealed_by": env("noib", "NCCL_IB_DISABLE", "1"),
             "resolved_by": None},
        ],
        "success": None,
        "catch22": [],
        "pivots": [],
        "outcome": "unresolved",
        "recipe": [],
        "facts": [
            "the first collective (SeqNum=1, ALLREDUCE of 1 element) never completes: last completed work -1",
            "gpu-a01 has a docker0 bridge (172.17.0.1) and NCCL picked it for bootstrap",
            "NCCL_SOCKET_IFNAME=ens1f0np0 fixes the bootstrap connection",
            "the collective still times out over RoCE (status=12, vendor err 129) and over TCP sockets",
            "NCCL_P2P_DISABLE=1 makes no difference",
            "ens1f0np0 has MTU 9000 on both nodes; DF pings of 8972 bytes are lost, 1472 bytes pass",
        ],
        "hedged_claims": [{"seq": s("summary:text"), "text": "The switch path is probably at MTU 1500",
                           "held": "unverified"}],
        "expected_text": {
            "log": {"seq": s("log:result"), "contains": "ran for 600000 milliseconds before timing out"},
            "debug": {"seq": s("debug:result"), "contains": "NCCL WARN socketStartConnect"},
            "ifname": {"seq": s("ifname:result"), "contains": "NCCL WARN NET/IB : Got completion"},
            "noib": {"seq": s("noib:result"), "contains": "Watchdog caught collective operation timeout"},
        },
        "invented": "All of it: hosts, addresses, pids, timings and every log line are written for this sample, "
                    "following torch ProcessGroupNCCL / torchrun and NCCL INFO/WARN message shapes.",
        "real": ["the watchdog line follows the shape of real torch messages quoted in public issues "
                 "(../shared/corpus nccl_timeout records)",
                 "the rollout follows Codex CLI's record types (session_meta, turn_context, response_item, "
                 "event_msg) and its shell function_call / function_call_output encoding"],
    }
