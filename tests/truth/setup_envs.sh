#!/usr/bin/env bash
# Build the venvs of the truth matrix: torch 2.13.0 (CPU build), 2.14.1 and 2.15.0
# (the PyPI CUDA builds, which import and run CPU code on a machine without a GPU).
#
#   bash tests/truth/setup_envs.sh                 # all three
#   bash tests/truth/setup_envs.sh 2.15.0          # just the newest (what CI runs)
#   python -m pytest tests/truth/test_truth_releases.py  # then: the whole matrix
#
# ADVISOR_TRUTH_DIR (default ~/.cache/advisor-truth) holds the venvs t2130, t2141,
# t2150 and wheels/, a wheelhouse of every file downloaded: keep it between CI runs
# and a rebuild downloads nothing. A venv whose torch already has the wanted version
# is left alone, so running this twice is cheap.
#
# Smallest install that works (measured): torch with --no-deps does NOT import
# (ImportError: libcudnn.so.9), because libtorch_python.so / libtorch_cuda.so link
# the CUDA libraries directly. What is installed is exactly the set those libraries
# need at load time (ldd), at the versions the wheel pins: no triton, cuda-bindings,
# cupti, cusolver (only libtorch_cuda_linalg.so, loaded on first CUDA linalg call),
# nvtx. 2.15 no longer links curand. See tests/truth/README.md.
#
# A machine-wide pip constraint may cap torch (here /etc/xdg/pip/constraints.txt:
# torch<=2.14.1); it is overridden with PIP_CONSTRAINT=/dev/null for the 2.15.0
# downloads and install only.
set -euo pipefail

DIR="${ADVISOR_TRUTH_DIR:-$HOME/.cache/advisor-truth}"
PY="${PYTHON:-$(command -v python3.11 || command -v python3)}"
WHEELS="$DIR/wheels"
mkdir -p "$WHEELS"

# Pure-Python requirements of torch that the checks need (numpy: no warning at import).
PURE=(filelock typing-extensions sympy networkx jinja2 fsspec numpy)

# Per release: the torch requirement and its load-time CUDA libraries, pinned as the
# wheel's METADATA pins them (cuda-toolkit extras select the nvidia-* packages).
REQ_2130=("torch==2.13.0+cpu")
REQ_2141=("torch==2.14.1"
  "cuda-toolkit[cublas,cufft,cufile,curand,cusparse,nvjitlink,nvrtc]==13.0.3"
  "nvidia-cudnn-cu13==9.24.0.43" "nvidia-cusparselt-cu13==0.8.1"
  "nvidia-nccl-cu13==2.30.7" "nvidia-nvshmem-cu13==3.4.5")
REQ_2150=("torch==2.15.0"
  "cuda-toolkit[cublas,cufft,cufile,cusparse,nvjitlink,nvrtc]==13.2.2"
  "nvidia-cudnn-cu13==9.26.0.51" "nvidia-cusparselt-cu13==0.8.1"
  "nvidia-nccl-cu13==2.30.7" "nvidia-nvshmem-cu13==3.7.2")
# Where the 2.13.0 CPU build comes from; set ADVISOR_TRUTH_CPU_INDEX= (empty) where it is
# already reachable through pip's configured find-links or indexes (or offline).
CPU_INDEX="${ADVISOR_TRUTH_CPU_INDEX-https://download.pytorch.org/whl/cpu}"

have() {  # have VENV VERSION: the venv's torch imports and is that release
  [ -x "$1/bin/python" ] && "$1/bin/python" -c "import sys, torch; sys.exit(not torch.__version__.startswith('$2'))" 2>/dev/null
}

build() {  # build NAME VERSION REQ...
  local name="$1" version="$2"; shift 2
  local venv="$DIR/$name" t0
  if have "$venv" "$version"; then
    echo "truth env $name: torch $version already there ($venv)"
    return
  fi
  t0=$(date +%s)
  echo "truth env $name: building torch $version in $venv"
  rm -rf "$venv"
  "$PY" -m venv "$venv"
  local pip=("$venv/bin/python" -m pip)
  local extra=()
  if [ "$version" = "2.13.0" ] && [ -n "$CPU_INDEX" ]; then extra=(--extra-index-url "$CPU_INDEX"); fi
  # 1. torch itself, without its dependencies (the CUDA ones are chosen below).
  "${pip[@]}" download -q --no-deps -d "$WHEELS" "${extra[@]}" "$1"
  # 2. the load-time CUDA libraries, resolved with their own small dependencies.
  if [ "$#" -gt 1 ]; then
    "${pip[@]}" download -q -d "$WHEELS" "${@:2}"
  fi
  "${pip[@]}" install -q --no-index --find-links "$WHEELS" --no-deps "$1"
  if [ "$#" -gt 1 ]; then
    "${pip[@]}" install -q --no-index --find-links "$WHEELS" "${@:2}"
  fi
  "${pip[@]}" install -q "${PURE[@]}"
  "$venv/bin/python" -c "import torch; assert torch.__version__.startswith('$version'), torch.__version__; print('truth env $name:', torch.__version__, 'cuda build:', torch.version.cuda, 'tensor ok:', float(torch.ones(3) @ torch.ones(3)))"
  echo "truth env $name: $(( $(date +%s) - t0 ))s, $(du -sh "$venv" | cut -f1)"
}

wanted=("$@")
[ "${#wanted[@]}" -eq 0 ] && wanted=(2.13.0 2.14.1 2.15.0)
for v in "${wanted[@]}"; do
  case "$v" in
    2.13|2.13.0) build t2130 2.13.0 "${REQ_2130[@]}" ;;
    2.14|2.14.1) build t2141 2.14.1 "${REQ_2141[@]}" ;;
    2.15|2.15.0) PIP_CONSTRAINT=/dev/null build t2150 2.15.0 "${REQ_2150[@]}" ;;
    *) echo "unknown release $v (known: 2.13.0 2.14.1 2.15.0)" >&2; exit 2 ;;
  esac
done
echo "wheelhouse $WHEELS: $(du -sh "$WHEELS" | cut -f1)"
echo "run: ADVISOR_TRUTH_DIR=$DIR python -m pytest tests/truth/test_truth_releases.py"
