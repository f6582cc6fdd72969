# The Python steps' self-test (selftest.py.*; docs/watchdog.md "Checking it yourself"): behaves
# as its `behave` argument says, so the warm worker's and the fresh interpreter's handling of
# each way a real step ends can be seen and tested on any machine with a Python, no GPU needed.
#   pass      phases import, launch, sync, verify; says which process ran it and what it found
#             already imported (the worker's preload)
#   hang      enters phase `phase` (default launch) and blocks at 0 % CPU, as a GPU wait that
#             never completes; only the watchdog's deadline ends it
#   crash     SIGSEGV in phase launch, as a driver fault
#   die_after sends its result, then a moment later SIGKILLs the process `kill` names: "self"
#             (inline in a worker: the interpreter) or "parent" (forked: the worker's
#             interpreter; inline: the worker process that hosts it): a death between steps
#   import    imports the module `module` (a broken or missing one ends the step as a real
#             import failure would)
#   fail      a step that fails (in a worker: the one after it must get a new interpreter)
#   leak      leaves an environment variable, a torch-free global switch and a module behind,
#             then passes; `pass` reports whether it sees them
import os
import signal
import sys
import threading
import time

import gs_protocol as gs

LEAK_VAR = "GPUSTACK_SELFTEST_LEAK"


def main(data):
    a = gs.args()
    behave = a.get("behave", "pass")
    data["pid"] = os.getpid()
    data["ppid"] = os.getppid()
    gs.phase("import")
    wanted = [m for m in str(a.get("preloaded", "")).split(",") if m]
    data["already_imported"] = sorted(m for m in wanted if m in sys.modules)
    data["leak_seen"] = LEAK_VAR in os.environ
    if behave == "import":
        __import__(str(a.get("module", "gpustack_no_such_module")))
    if behave == "hang":
        gs.phase(str(a.get("phase", "launch")))
        while True:
            signal.pause() if hasattr(signal, "pause") else time.sleep(3600)
    gs.phase("launch")
    if behave == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    gs.phase("sync")
    gs.phase("verify")
    if behave == "fail":
        gs.fail("selftest: a failing step", data)
        return
    if behave == "leak":
        os.environ[LEAK_VAR] = "1"
    if behave == "die_after":
        victim = os.getpid() if a.get("kill", "self") == "self" else os.getppid()
        data["will_kill"] = victim
        threading.Timer(0.3, lambda: os.kill(victim, signal.SIGKILL)).start()
    gs.passed("selftest: %s in pid %d" % (behave, os.getpid()), data)


gs.run(main)
