# The verdict of a standalone reproducer (`gpustack probe fla --emit-repro`, src/fla/fla_repro.h),
# written once for the mains of both backends (repro_triton_main.py, repro_fla_main.py). Not run
# on its own: the reproducer is one file, and kernels/triton/gdn_ref.py stands before this in it.


def forward_verdict(torch, o, state, q, k, v, g, beta, dtype_name):
    """Prints whether the forward (`o`, final `state`) matches the float64 recurrence on the same
    inputs; the exit code: 1 when it differs (the failure reproduced), 0 when it passed here."""
    err = check_forward(torch, o, state, q, k, v, g, beta, dtype_name)  # noqa: F821  (gdn_ref, above)
    rel, s_rel, tol = err["rel_err"], err["state_rel_err"], err["tolerance"]
    if not (rel <= tol and s_rel <= tol):
        print("FAILED  output differs from the float64 recurrence: rel err %.2e, state %.2e (tolerance %.0e)"
              % (rel, s_rel, tol))
        return 1
    print("PASSED  rel err %.1e, state %.1e (tolerance %.0e): the failure did not reproduce" % (rel, s_rel, tol))
    return 0
