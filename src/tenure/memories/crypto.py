"""Encryption at rest: AES-GCM for titles, contents and vectors; keyed hashes for searchable terms.

One 32-byte master key per project, from `TENURE_KEY` (base64) or a key file outside the repository
(`$XDG_CONFIG_HOME/tenure/<project id>.key`, default `~/.config`), created 0600 on first use.
Organisation-scope content has its own key, loaded the same way: `TENURE_ORG_KEY` or
`org-<organisation>.key` beside the project keys; a team hands it to its members out of band (the
database never holds a key). Three
sub-keys are derived from it (HKDF), so the term hashes and the key id reveal nothing about the
encryption key. The database stores the key id: a different key is refused before anything is
read or written, so a wrong key can neither show garbage nor mix two keys in one database.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import stat
from pathlib import Path

import numpy as np
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from threadpoolctl import threadpool_limits

from tenure.memories.errors import KeyProblem
from tenure.team.user_config import user_config_dir

KEY_ENV = "TENURE_KEY"
ORG_KEY_ENV = "TENURE_ORG_KEY"
KEY_BYTES = 32
NONCE_BYTES = 12
VERSION = b"\x01"  # leading byte of every ciphertext, so the format can change later
TERM_HASH_BYTES = 8  # 64-bit keyed hashes: collisions are negligible for a project's vocabulary
ROTATION_BLOCK, ROTATION_ROUNDS = 128, 2  # the keyed rotation of vectors (KeyedRotation)


def key_dir() -> Path:
    return user_config_dir()


def key_file(project_id: str) -> Path:
    return key_dir() / f"{project_id}.key"


def org_key_file(organisation: str) -> Path:
    return key_dir() / f"org-{organisation}.key"


def load_key(project_id: str, root: Path, create: bool) -> bytes:
    """The master key: `TENURE_KEY` wins over the key file. `create` makes a new key file when
    there is none (only allowed while nothing has been encrypted yet)."""
    return _load(KEY_ENV, key_file(project_id), root, create, "these memories")


def load_org_key(organisation: str, root: Path, create: bool) -> bytes:
    """The organisation's key, as `load_key` (`TENURE_ORG_KEY`, else `org-<organisation>.key`)."""
    return _load(ORG_KEY_ENV, org_key_file(organisation), root, create,
                 f"the organisation {organisation}'s memories")


def has_org_key(organisation: str) -> bool:
    return bool(os.environ.get(ORG_KEY_ENV)) or org_key_file(organisation).exists()


def _load(env: str, path: Path, root: Path, create: bool, what: str) -> bytes:
    if os.environ.get(env):
        return _decode_env_key(os.environ[env], env)
    if _inside(path, root):
        raise KeyProblem(f"the key file {path} lies inside the project {root}: it would travel with the "
                         f"repository. Set XDG_CONFIG_HOME to a directory outside it, or set {env}.")
    if path.exists():
        return _read_key_file(path)
    if not create:
        raise KeyProblem(f"no key: {what} are encrypted, and neither {env} is set nor {path} "
                         f"exists. Restore the key file (or set {env} to its base64 content); "
                         "without it they cannot be read.")
    return _create_key_file(path)


def _decode_env_key(value: str, source: str = KEY_ENV) -> bytes:
    try:
        key = base64.b64decode(value.strip(), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise KeyProblem(f"{source} is not valid base64: set it to 32 random bytes in base64, "
                         "e.g. `python -c \"import os,base64;print(base64.b64encode(os.urandom(32)).decode())\"`"
                         ) from exc
    if len(key) != KEY_BYTES:
        raise KeyProblem(f"{source} decodes to {len(key)} bytes; it must be {KEY_BYTES} bytes (base64 of 32 bytes)")
    return key


def _read_key_file(path: Path) -> bytes:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise KeyProblem(f"the key file {path} is readable by others (mode {mode:o}); "
                         f"run `chmod 600 {path}` and try again")
    return _decode_env_key(path.read_text().strip(), str(path))


def _create_key_file(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = os.urandom(KEY_BYTES)
    # Written aside, then linked into place: a process starting at the same moment either sees no
    # file or the whole key, and two processes can never install two different keys.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(base64.b64encode(key).decode() + "\n")
    try:
        os.link(tmp, path)
    except FileExistsError:
        return _read_key_file(path)
    finally:
        tmp.unlink()
    return key


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def _derive(master: bytes, purpose: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None, info=b"tenure:" + purpose).derive(master)


class Cipher:
    """Encrypts and hashes with one key (a project's, or its organisation's: `label` names it in errors)."""

    def __init__(self, master: bytes, label: str = "the project's key") -> None:
        self.label = label
        self._aead = AESGCM(_derive(master, b"encrypt"))
        self._term_key = _derive(master, b"terms")
        self._rotation_key = _derive(master, b"vector-rotation")
        self._rotations: dict[int, np.ndarray] = {}
        self.key_id = hashlib.sha256(_derive(master, b"key-id")).hexdigest()[:16]

    def encrypt(self, plaintext: str | bytes, purpose: str) -> bytes:
        """`purpose` (e.g. "title") is bound into the tag: a title blob cannot pass as a content."""
        data = plaintext.encode() if isinstance(plaintext, str) else plaintext
        nonce = os.urandom(NONCE_BYTES)
        return VERSION + nonce + self._aead.encrypt(nonce, data, purpose.encode())

    def decrypt_bytes(self, blob: bytes, purpose: str) -> bytes:
        if not blob or blob[:1] != VERSION:
            raise KeyProblem(f"a stored {purpose} is not in tenure's encrypted format; the database may be damaged")
        nonce, body = blob[1 : 1 + NONCE_BYTES], blob[1 + NONCE_BYTES :]
        try:
            return self._aead.decrypt(nonce, body, purpose.encode())
        except InvalidTag as exc:
            raise KeyProblem(f"a stored {purpose} does not decrypt with this key ({self.label}, key id {self.key_id}): "
                             "the key is wrong or the row was tampered with") from exc

    def decrypt(self, blob: bytes | None, purpose: str) -> str:
        return self.decrypt_bytes(blob, purpose).decode() if blob else ""

    def term_hash(self, term: str) -> str:
        return hmac.new(self._term_key, term.encode(), hashlib.sha256).hexdigest()[: 2 * TERM_HASH_BYTES]

    def rotate(self, vectors: np.ndarray) -> np.ndarray:
        """Vectors (one, or one per row) turned by this key's orthogonal map (`KeyedRotation`), as
        float32: inner products and cosines between turned vectors are those of the originals, so a
        database ranks them exactly, while they no longer lie in the model's space (docs/team.md says
        what that hides and what it does not)."""
        vectors = np.asarray(vectors, dtype=np.float64)
        dim = vectors.shape[-1]
        if dim not in self._rotations:
            self._rotations[dim] = KeyedRotation(self._rotation_key, dim)
        return self._rotations[dim](vectors).astype(np.float32)


class KeyedRotation:
    """An orthogonal map of `dim` coordinates drawn from a key alone: ROTATION_ROUNDS times, a keyed
    permutation of the coordinates, then a random rotation (uniform: QR of a Gaussian matrix) of each
    block of about ROTATION_BLOCK of them. Two rounds mix every coordinate with every other, and a
    block's size keeps the draw cheap at any dimension (a dense 3,072-dimensional rotation takes
    seconds to draw). The numbers come from SHAKE-256 of the key, not from NumPy's generators, whose
    streams may change between versions (a map that changed would rank every stored vector against
    the wrong query)."""

    def __init__(self, key: bytes, dim: int) -> None:
        blocks = np.array_split(np.arange(dim), -(-dim // ROTATION_BLOCK))
        sizes = [len(block) for block in blocks]
        count = ROTATION_ROUNDS * (dim + sum(n * n for n in sizes))
        words = np.frombuffer(hashlib.shake_256(key + dim.to_bytes(4, "big")).digest(8 * count), dtype="<u8")
        uniform = iter(np.split((words >> np.uint64(11)).astype(np.float64) * 2.0**-53,  # 53 bits each, in [0, 1)
                                np.cumsum([n for _ in range(ROTATION_ROUNDS) for n in (dim, *(m * m for m in sizes))])))
        self.rounds: list[tuple[np.ndarray, list[np.ndarray]]] = []
        with threadpool_limits(1, user_api="blas"):  # (small matrices: BLAS threads cost more than they save)
            for _ in range(ROTATION_ROUNDS):
                order = np.argsort(next(uniform), kind="stable")
                self.rounds.append((order, [_uniform_rotation(next(uniform), n) for n in sizes]))

    def __call__(self, vectors: np.ndarray) -> np.ndarray:
        for order, blocks in self.rounds:
            vectors = vectors[..., order]
            start, turned = 0, []
            for block in blocks:
                turned.append(vectors[..., start : start + len(block)] @ block.T)
                start += len(block)
            vectors = np.concatenate(turned, axis=-1)
        return vectors


def _uniform_rotation(uniform: np.ndarray, n: int) -> np.ndarray:
    """A rotation of `n` coordinates, uniform over all of them, from n * n uniform numbers: a Gaussian
    matrix (Box-Muller) and the Q of its QR decomposition, signs fixed (QR's choice of them would bias it)."""
    half = len(uniform) // 2
    radius, angle = np.sqrt(-2.0 * np.log1p(-uniform[:half])), 2.0 * np.pi * uniform[half : 2 * half]
    gaussian = np.concatenate([radius * np.cos(angle), radius * np.sin(angle), radius[:len(uniform) % 2]])
    q, r = np.linalg.qr(gaussian.reshape(n, n))
    return q * np.sign(np.diag(r))
