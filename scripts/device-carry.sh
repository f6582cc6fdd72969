# Sourced by the device batches (scripts/h200-*.sh), from the repository root: the binary packed
# into .carry (scripts/pack-for-device.sh) as $GS with its libraries on the loader's path, and the
# wheels carried in .whl (scripts/fetch-wheels.sh), if any, installed into /tmp/site and put on
# PYTHONPATH. Exits 2 when the binary was not packed or a wheel does not install.
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
GS=$PWD/.carry/bin/gpustack
[ -x "$GS" ] || { echo "no $GS: pack first"; exit 2; }
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl ||
    { echo "wheel install failed"; exit 2; }
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
