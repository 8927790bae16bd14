"""Download one file from the Hugging Face hub, resumably, and verify it before it is used.

Through huggingface_hub (HF_ENDPOINT, HF_TOKEN for gated repos, its `.incomplete` files that a
later run resumes with a Range request), with what it leaves out added here:
- one quick probe first: without a network huggingface_hub retries for ~45 s; this says so at once;
- a free-space check before the first byte;
- the hash check: the hub records each file's SHA-256 (the X-Linked-Etag of LFS files; small files
  have the git blob SHA-1 as their ETag) and hf_hub_download does not compare it; a mismatch
  deletes the file and says so;
- plain HTTP, not the Xet protocol: it resumes with Range requests, shows progress on the file
  itself, and keeps no second copy in a chunk cache under ~/.cache.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import ModelError, OfflineError

DEFAULT_ENDPOINT = "https://huggingface.co"
PROBE_TIMEOUT_S = (4, 10)  # connect, read: an unreachable hub is one line within seconds
FREE_SPACE_MARGIN = 64 * 2**20
CHUNK = 2**20
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SHA1 = re.compile(r"^[0-9a-f]{40}$")

Progress = Callable[[int, int], None]  # (bytes done, bytes total)


@dataclass(frozen=True)
class RemoteFile:
    repo: str
    filename: str
    commit: str
    size: int
    etag: str  # SHA-256 for LFS files, git blob SHA-1 for small ones

    @property
    def hash_kind(self) -> str:
        return "sha256" if _SHA256.match(self.etag) else "git-sha1" if _SHA1.match(self.etag) else ""


def hub_endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def file_url(repo: str, filename: str, endpoint: str | None = None) -> str:
    return f"{endpoint or hub_endpoint()}/{repo}/resolve/main/{filename}"


@contextlib.contextmanager
def _online():
    """huggingface_hub's settings for a pull: network on (the CLI sets HF_HUB_OFFLINE=1 for every
    other library, and huggingface_hub reads it once, at import), plain HTTP, no tqdm bars."""
    from huggingface_hub import constants
    from huggingface_hub.utils import (are_progress_bars_disabled, disable_progress_bars,
                                       enable_progress_bars, logging, reset_sessions)

    saved = (constants.HF_HUB_OFFLINE, constants.HF_HUB_DISABLE_XET, constants.DOWNLOAD_CHUNK_SIZE,
             logging.get_verbosity())
    bars_were_off = are_progress_bars_disabled()
    constants.HF_HUB_OFFLINE, constants.HF_HUB_DISABLE_XET = False, True
    # It writes the file in chunks of this size: 1 MB (not 10) is what a drop can lose and how
    # often the bar moves.
    constants.DOWNLOAD_CHUNK_SIZE = CHUNK
    logging.set_verbosity_error()  # its "retrying..." warnings would break the one-line rule
    disable_progress_bars()
    reset_sessions()  # sessions made while offline refuse every request
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE, constants.HF_HUB_DISABLE_XET, constants.DOWNLOAD_CHUNK_SIZE = saved[:3]
        logging.set_verbosity(saved[3])
        if not bars_were_off:
            enable_progress_bars()
        reset_sessions()


def remote_file(repo: str, filename: str, *, offline: bool, if_offline: str) -> RemoteFile:
    """What the hub records for one file: commit, size, hash. if_offline: what the user should do
    instead (appended to the one-line error when the hub cannot be reached)."""
    endpoint = hub_endpoint()
    if offline:
        raise OfflineError(f"offline (HF_HUB_OFFLINE is set): {if_offline}")
    from huggingface_hub import get_hf_file_metadata
    from huggingface_hub.utils import (EntryNotFoundError, GatedRepoError, HfHubHTTPError,
                                       RepositoryNotFoundError, build_hf_headers, get_session)
    import requests

    url = file_url(repo, filename, endpoint)
    with _online():
        try:  # one try, no retries: huggingface_hub's own call would back off for ~45 s
            get_session().head(url, headers=build_hf_headers(), allow_redirects=False, timeout=PROBE_TIMEOUT_S)
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise OfflineError(f"cannot reach {endpoint} ({_reason(exc)}): {if_offline}") from None
        except requests.RequestException as exc:  # e.g. HF_ENDPOINT without http(s)://
            raise ModelError(f"cannot use the hub address {endpoint} ({_reason(exc)}); check HF_ENDPOINT") from None
        try:
            meta = get_hf_file_metadata(url, timeout=PROBE_TIMEOUT_S[1], endpoint=endpoint)
        except GatedRepoError:
            raise ModelError(f"{repo} is gated: accept its licence at {endpoint}/{repo} and set HF_TOKEN "
                             "(or run `huggingface-cli login`), then pull again") from None
        except RepositoryNotFoundError:
            raise ModelError(f"no repository {repo} on {endpoint} (or it is private: set HF_TOKEN)") from None
        except EntryNotFoundError:
            raise ModelError(f"{repo} has no file {filename} (see {endpoint}/{repo}/tree/main)") from None
        except HfHubHTTPError as exc:
            raise ModelError(f"the hub refused {url}: {_reason(exc)}") from None
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise OfflineError(f"lost the connection to {endpoint} ({_reason(exc)}): {if_offline}") from None
    if not meta.commit_hash or not meta.etag or meta.size is None:
        raise ModelError(f"{endpoint} does not look like a Hugging Face hub (no commit, hash or size "
                         f"for {repo}/{filename}); check HF_ENDPOINT")
    return RemoteFile(repo, filename, meta.commit_hash, int(meta.size), meta.etag)


def _reason(exc: BaseException) -> str:
    """A few words on a network failure, instead of urllib3's nested retry message."""
    text = str(exc)
    for needle, words in (("Name or service not known", "the host name does not resolve"),
                          ("Failed to resolve", "the host name does not resolve"),
                          ("Temporary failure in name resolution", "the host name does not resolve"),
                          ("Connection refused", "connection refused"), ("timed out", "timed out"),
                          ("Network is unreachable", "network unreachable"),
                          ("Connection reset", "connection reset"), ("Connection broken", "connection broken")):
        if needle in text:
            return words
    match = re.search(r"\d{3} [A-Za-z ]+ for url", text)
    return match.group(0) if match else (text.splitlines() or [type(exc).__name__])[0][:120]


def partial_file(local_dir: Path, remote: RemoteFile) -> Path | None:
    folder = local_dir / ".cache" / "huggingface" / "download"
    return next(iter(folder.rglob(f"*.{remote.etag}.incomplete")), None) if folder.is_dir() else None


def check_free_space(folder: Path, remote: RemoteFile) -> None:
    """Stop before the first byte when what is left to download does not fit."""
    partial = partial_file(folder, remote)
    needed = remote.size - (partial.stat().st_size if partial else 0) + FREE_SPACE_MARGIN
    probe = folder
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if free < needed:
        raise ModelError(f"not enough free space for {remote.filename}: it needs {megabytes(needed)} more in "
                         f"{probe}, {megabytes(free)} is free; free some space or set ASSISTANT_DATA_DIR "
                         "to a larger disk")


def megabytes(n: int) -> str:
    return f"{n / 2**30:.1f} GB" if n >= 2**30 else f"{n / 2**20:.1f} MB"


def file_hash(path: Path, kind: str, on_progress: Progress | None = None) -> str:
    size = path.stat().st_size
    digest = hashlib.sha256() if kind == "sha256" else hashlib.sha1(f"blob {size}\0".encode())
    done = 0
    with path.open("rb") as fh:
        while chunk := fh.read(8 * 2**20):
            digest.update(chunk)
            done += len(chunk)
            if on_progress:
                on_progress(done, size)
    return digest.hexdigest()


def _watch(local_dir: Path, remote: RemoteFile, on_progress: Progress, stop: threading.Event) -> None:
    """Report the growing `.incomplete` file: huggingface_hub's own bars are tqdm, not ours."""
    while not stop.wait(0.25):
        partial = partial_file(local_dir, remote)
        with contextlib.suppress(OSError):
            if partial is not None:
                on_progress(partial.stat().st_size, remote.size)


def download(remote: RemoteFile, local_dir: Path, on_progress: Progress | None = None,
             on_verify: Progress | None = None) -> Path:
    """The file under local_dir, downloaded (or resumed) and checked against the hub's hash."""
    import requests
    from huggingface_hub import hf_hub_download

    local_dir.mkdir(parents=True, exist_ok=True)
    check_free_space(local_dir, remote)
    stop = threading.Event()
    watcher = threading.Thread(target=_watch, args=(local_dir, remote, on_progress, stop), daemon=True) \
        if on_progress else None
    with _online():
        if watcher:
            watcher.start()
        try:
            path = Path(hf_hub_download(remote.repo, remote.filename, revision=remote.commit,
                                        local_dir=local_dir, endpoint=hub_endpoint()))
        except requests.RequestException as exc:  # network errors and HTTP errors alike
            raise OfflineError(f"the download of {remote.filename} stopped ({_reason(exc)}); "
                               "run the same command again to resume it") from None
        except OSError as exc:  # disk full, permissions, a size mismatch
            raise ModelError(f"cannot download {remote.filename}: {_reason(exc)}") from None
        finally:
            stop.set()
    if on_progress:
        on_progress(remote.size, remote.size)
    verify(path, remote, local_dir, on_verify)
    return path


def verify(path: Path, remote: RemoteFile, local_dir: Path, on_progress: Progress | None = None) -> None:
    """Compare the file with the hub's recorded hash; a mismatch deletes it (and what would let
    huggingface_hub take it for finished) and is a one-line error."""
    kind = remote.hash_kind
    if not kind:
        raise ModelError(f"the hub gave no usable hash for {remote.filename} (ETag {remote.etag!r}); "
                         "not using an unverified file")
    actual = file_hash(path, kind, on_progress)
    if actual == remote.etag:
        return
    path.unlink(missing_ok=True)
    meta = local_dir / ".cache" / "huggingface" / "download" / f"{remote.filename}.metadata"
    meta.unlink(missing_ok=True)
    raise ModelError(f"{remote.filename} is corrupt: its {kind} is {actual[:12]}..., the hub records "
                     f"{remote.etag[:12]}...; deleted it, run the same command to download it again")
