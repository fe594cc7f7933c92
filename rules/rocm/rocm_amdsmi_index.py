from __future__ import annotations

from advisor.rule import Example, ReferenceRule, Severity

AMDSMI_FUNCTIONS = ("temperature", "utilization", "power_draw", "clock_rate", "memory_usage")


class RocmAmdsmiDeviceIndex(ReferenceRule):
    """`torch.cuda.temperature` / `utilization` / `power_draw` / `clock_rate` / `memory_usage` on ROCm.

    What it finds: calls of these functions (and other references to them) in
    code that targets ROCm.

    Why: on ROCm these read AMD-SMI, whose device numbering can differ from
    HIP's. 2.12 translates the HIP index to the AMD-SMI index through
    `amdsmi_get_gpu_enumeration_info()` when visible devices are given as
    indices (PR #178398). Before, these functions could report another GPU on
    multi-GPU nodes; code that remaps indices itself now translates twice.
    On ROCm < 6.4 the translation is unavailable and torch warns that these
    functions "may operate on wrong devices".

    Example:
        temp = torch.cuda.temperature(amdsmi_index(rank))  # now remapped twice

    Fix safety: no fix: pass the HIP (torch) device index and drop any manual mapping.

    Validation: `rocm_runtime` (prints each device's reading; compare with the
    HIP-ID column of `amd-smi monitor`).
    """

    code = "ADV808"
    statement_local = True  # reported at the reference; nothing else read
    name = "rocm-amdsmi-device-index"
    message = (
        "on ROCm, torch 2.12 maps the HIP device index to AMD-SMI numbering inside `torch.cuda.{fn}()`: pass the torch "
        "device index and drop any manual remapping (it now translates twice); compare with `amd-smi monitor` using "
        "the `rocm_runtime` validation script"
    )
    severity = Severity.INFO
    since = "2.12"
    device = "rocm"
    validation = "rocm_runtime"
    triggers = AMDSMI_FUNCTIONS
    names = {f"torch.cuda.{f}" for f in AMDSMI_FUNCTIONS}
    targets = tuple(sorted(names))

    valid = [
        "import torch\nIS_ROCM = torch.version.hip\nx = torch.cuda.memory_allocated(0)",
        # CUDA-only code: silent.
        "import torch\nprint(torch.cuda.temperature(0))",
        "import torch\nIS_ROCM = torch.version.hip\nimport psutil\npsutil.cpu_percent()\ndef temperature(i): ...\ntemperature(0)",
    ]
    invalid = [
        Example("import torch\nif torch.version.hip:\n    print(torch.cuda.temperature(0))"),
        Example(
            "import torch\nfrom torch.cuda import utilization, power_draw\nHIP_VISIBLE = 'HIP_VISIBLE_DEVICES'\nu, p = utilization(1), power_draw(1)",
            count=2,
        ),
    ]

    def on_call(self, node, qualname: str) -> None:
        self.report(node, self.message.format(fn=qualname.rsplit(".", 1)[1]))

    def on_reference(self, node, qualname: str) -> None:
        self.report(node, self.message.format(fn=qualname.rsplit(".", 1)[1]))
