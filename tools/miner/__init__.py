"""Mine the user-facing deprecations of a torch / torchvision / torchaudio release, statically.

Reads a wheel (``.whl`` zip) or an installed tree with :mod:`ast`; never imports it. Finds:

* ``warn``: ``warnings.warn(msg, category)`` where the category is ``DeprecationWarning``,
  ``PendingDeprecationWarning`` or ``FutureWarning``, or where any other category's message has
  deprecation wording (see ``WORDING``); also calls of the library's own deprecation helpers
  (any callee whose name contains ``deprecat``, e.g. ``warn_deprecated("vmap")``,
  ``lazy_deprecated_import(...)``).
* ``deprecated-decorator``: ``@deprecated(...)`` / ``@typing_extensions.deprecated(...)`` and any
  decorator or module-level wrapper call whose callee name contains ``deprecat`` or starts with
  ``dropping`` (torchaudio's ``dropping_support``), e.g. ``uniform = _make_deprecate(uniform_)``.
* ``removed``: public names that one version exports and the next mined version no longer defines
  (module ``__all__`` when it is a literal, else the public top-level definitions), and public
  modules that disappear.

"User-facing" (documented in docs/coverage.md):

* the API's canonical name has no ``_``-prefixed component (dunders are not private). A private
  definition re-exported by a public module (``from torch._tensor import Tensor`` in
  ``torch/__init__.py``) takes its shortest public alias (``torch.Tensor``), so it counts;
* nothing under a ``test``/``tests``/``benchmarks``/``third_party`` directory;
* only the distribution's own top-level packages (torch wheel: ``torch``, ``functorch``; not
  ``torchgen``, which is build tooling).

Items are keyed by a deterministic id ``<dist>:<kind>:<api>`` so the coverage ledger can key on
it across versions; the evidence is the newest mined site (``path:line`` inside the wheel).

Usage::

    python tools/mine_deprecations.py WHEEL_OR_DIR [WHEEL_OR_DIR ...] [-o out.json]
    python -m tools.miner WHEEL_OR_DIR [WHEEL_OR_DIR ...] [-o out.json]   # the same

Several versions of one distribution are mined in version order; removals are computed
between consecutive ones. A directory is an installed ``site-packages`` (give ``--dist``).

Modules, by concern: ``wheels`` (reading a wheel or a tree), ``pysyntax`` and ``sites`` (the Python AST
pass over one file, and its cache), ``model`` (one release: exports, aliases, sites, removals), ``index``
(the per-release API index), ``catalogue`` (the mined rules' data), ``items`` (the ledger's items),
``cli`` (the command line).
"""

from __future__ import annotations

from .catalogue import CATALOGUE_ABOUT, LEDGER_PATH, derive_catalogue, write_catalogue
from .cli import main
from .common import MINER_VERSION, STUBS, TOP_PACKAGES, fragment, is_excluded_path, is_private, module_name
from .index import (
    INDEX_ABOUT,
    INDEX_FORMAT,
    Index,
    Names,
    build_index,
    extend_index,
    indexed,
    intervals,
    read_index,
    truncate_index,
    write_index,
)
from .items import item_id, mine, mine_sites, summary
from .model import Release, build_release, canonical_api, removals, sites_of
from .sites import Cache, FileVisitor, analyse
from .wheels import Source, load, load_tree, load_wheel, peek

__all__ = [
    "CATALOGUE_ABOUT",
    "INDEX_ABOUT",
    "INDEX_FORMAT",
    "LEDGER_PATH",
    "MINER_VERSION",
    "STUBS",
    "TOP_PACKAGES",
    "Cache",
    "FileVisitor",
    "Index",
    "Names",
    "Release",
    "Source",
    "analyse",
    "build_index",
    "build_release",
    "canonical_api",
    "derive_catalogue",
    "extend_index",
    "truncate_index",
    "fragment",
    "indexed",
    "intervals",
    "is_excluded_path",
    "is_private",
    "item_id",
    "load",
    "load_tree",
    "load_wheel",
    "main",
    "mine",
    "mine_sites",
    "module_name",
    "peek",
    "read_index",
    "removals",
    "sites_of",
    "summary",
    "write_catalogue",
    "write_index",
]
