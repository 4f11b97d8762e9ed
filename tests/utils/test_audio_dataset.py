"""audio_dataset_from_directory: Keras's listing and split (compared with Keras's own
`index_directory`), tiny `.wav` files written here decoded as TensorFlow decodes them
(16-bit samples / 32768), batches zero-padded, resampling against SciPy."""

import os
import wave

import numpy as np
import pytest

os.environ.setdefault("KERAS_BACKEND", "jax")
keras_dataset_utils = pytest.importorskip("keras.src.utils.dataset_utils")

from lamina.utils import PyDataset, audio_dataset_from_directory  # noqa: E402

# Audio decoding is NumPy and the standard library only: one engine is enough.
pytestmark = pytest.mark.engine("jax")


def _write(path, samples, rate=8000, width=2):
    """Write integer samples `(frames, channels)` as PCM of `width` bytes."""
    samples = np.asarray(samples)
    if width == 3:
        little = samples.astype("<i4").view(np.uint8).reshape(-1, 4)[:, :3]
        data = little.tobytes()
    else:
        data = samples.astype({1: "u1", 2: "<i2", 4: "<i4"}[width]).tobytes()
    with wave.open(str(path), "wb") as f:
        f.setnchannels(samples.shape[1])
        f.setsampwidth(width)
        f.setframerate(rate)
        f.writeframes(data)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("audio")
    rng = np.random.default_rng(0)
    clips = {}
    for cls, lengths in (("no", (3, 5, 4)), ("yes", (6, 2))):
        (root / cls).mkdir()
        for i, n in enumerate(lengths):
            samples = rng.integers(-(2**15), 2**15, (n, 1))
            path = root / cls / f"c{i}.wav"
            _write(path, samples)
            clips[str(path)] = samples / 32768.0
    (root / "yes" / "notes.txt").write_text("not audio")
    return str(root), clips


def test_listing_decoding_and_padding(folder):
    root, clips = folder
    ds = audio_dataset_from_directory(root, batch_size=2, shuffle=True, seed=3, verbose=False)
    paths, labels, class_names = keras_dataset_utils.index_directory(
        root, "inferred", formats=(".wav",), shuffle=True, seed=3, verbose=False
    )
    assert isinstance(ds, PyDataset) and len(ds) == 3
    assert ds.file_paths == paths and ds.class_names == class_names == ["no", "yes"]
    got = []
    for audio, y in ds:
        assert audio.dtype == np.float32 and audio.ndim == 3 and audio.shape[2] == 1
        assert np.asarray(y).dtype == np.int32
        got.extend(zip(audio, np.asarray(y).tolist()))
    for (audio, label), path, want_label in zip(got, paths, labels):
        want = clips[path]
        np.testing.assert_allclose(audio[: len(want)], want, rtol=0, atol=0)
        assert not audio[len(want) :].any()  # padded with zeros to the batch's longest
        assert label == want_label


def test_sequence_length_label_modes_and_unbatched(folder):
    root, clips = folder
    common = dict(shuffle=False, verbose=False)
    ds = audio_dataset_from_directory(root, output_sequence_length=4, label_mode=None, **common)
    audio = ds[0]
    assert audio.shape == (5, 4, 1)  # no labels: the audio alone; cut or padded to 4
    for clip, path in zip(audio, ds.file_paths):
        want = np.zeros((4, 1))
        want[: min(4, len(clips[path]))] = clips[path][:4]
        np.testing.assert_allclose(clip, want, atol=0)
    _, y = audio_dataset_from_directory(root, label_mode="categorical", **common)[0]
    np.testing.assert_array_equal(y, np.eye(2, dtype="float32")[[0, 0, 0, 1, 1]])
    _, y = audio_dataset_from_directory(root, label_mode="binary", **common)[0]
    assert y.shape == (5, 1) and y.dtype == np.float32
    single = audio_dataset_from_directory(root, batch_size=None, **common)
    x, label = single[3]
    assert x.shape == (6, 1) and int(label) == 1  # each clip at its own length


def test_validation_split_both(folder):
    root, _ = folder
    train, val = audio_dataset_from_directory(
        root, validation_split=0.4, subset="both", seed=7, verbose=False
    )
    paths, _, _ = keras_dataset_utils.index_directory(
        root, "inferred", formats=(".wav",), shuffle=True, seed=7, verbose=False
    )
    assert train.file_paths == paths[:3] and val.file_paths == paths[3:]
    assert not val.shuffle and train.class_names == val.class_names == ["no", "yes"]


def test_sampling_rate_resamples_like_scipy(tmp_path):
    signal = pytest.importorskip("scipy.signal")
    samples = np.random.default_rng(1).integers(-3000, 3000, (30, 2))
    _write(tmp_path / "a.wav", samples, rate=8000)
    ds = audio_dataset_from_directory(
        tmp_path, labels=None, sampling_rate=12000, shuffle=False, verbose=False
    )
    want = signal.resample_poly(samples / 32768.0, 3, 2, axis=0)
    assert ds[0].shape == (1, 45, 2)
    np.testing.assert_allclose(ds[0][0], want, atol=1e-6)
    same = audio_dataset_from_directory(
        tmp_path, labels=None, sampling_rate=8000, output_sequence_length=32, verbose=False
    )
    np.testing.assert_allclose(same[0][0, :30], samples / 32768.0, atol=0)


@pytest.mark.parametrize(
    "width, samples, want",
    [
        (1, [[0, 255], [128, 64]], [[-1.0, 127 / 128], [0.0, -0.5]]),  # unsigned 8-bit
        (3, [[-(2**23), 2**23 - 1], [4096, -1]], [[-1.0, 1 - 2**-23], [2**-11, -(2**-23)]]),
        (4, [[-(2**31), 2**30]], [[-1.0, 0.5]]),
    ],
)
def test_other_pcm_widths(tmp_path, width, samples, want):
    _write(tmp_path / "a.wav", np.array(samples, dtype=np.int64), width=width)
    ds = audio_dataset_from_directory(tmp_path, labels=None, verbose=False)
    np.testing.assert_allclose(ds[0][0], want, rtol=1e-7)


def test_errors_say_what_to_do(tmp_path, folder):
    root, _ = folder
    with pytest.raises(ValueError, match="lamina has no ragged tensors"):
        audio_dataset_from_directory(root, ragged=True, verbose=False)
    with pytest.raises(ValueError, match="Cannot set both `ragged` and `output_sequence_length`"):
        audio_dataset_from_directory(root, ragged=True, output_sequence_length=3)
    for bad in (16000.0, 0, True):
        with pytest.raises(ValueError, match="sampling_rate"):
            audio_dataset_from_directory(root, sampling_rate=bad)
    with pytest.raises(ValueError, match="output_sequence_length"):
        audio_dataset_from_directory(root, output_sequence_length=-1)
    with pytest.raises(ValueError, match=r"No audio files found.*\.wav"):
        audio_dataset_from_directory(tmp_path, labels=None, verbose=False)
    # A 32-bit float WAV (format tag 3): not integer PCM, refused with the file named.
    header = b"fmt " + (16).to_bytes(4, "little") + (3).to_bytes(2, "little")
    header += (1).to_bytes(2, "little") + (8000).to_bytes(4, "little")
    header += (32000).to_bytes(4, "little") + (4).to_bytes(2, "little")
    header += (32).to_bytes(2, "little") + b"data" + (4).to_bytes(4, "little") + bytes(4)
    (tmp_path / "f.wav").write_bytes(
        b"RIFF" + (4 + len(header)).to_bytes(4, "little") + b"WAVE" + header
    )
    ds = audio_dataset_from_directory(tmp_path, labels=None, verbose=False)
    with pytest.raises(ValueError, match=r"f\.wav.*integer PCM"):
        ds[0]
    _write(tmp_path / "g.wav", np.zeros((2, 2), dtype=np.int64))  # 2 channels beside 1
    _write(tmp_path / "h.wav", np.zeros((2, 1), dtype=np.int64))
    (tmp_path / "f.wav").unlink()
    ds = audio_dataset_from_directory(tmp_path, labels=None, shuffle=False, verbose=False)
    with pytest.raises(ValueError, match="different numbers of channels"):
        ds[0]
