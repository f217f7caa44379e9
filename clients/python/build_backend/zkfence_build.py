"""A PEP 517 build backend for the zkfence package, standard library only.

setuptools cannot build a wheel on these machines without the ``wheel`` package, and there is no
PyPI to fetch it from; a pure-Python package needs no more than this: the files of
``src/zkfence`` and a ``.dist-info`` (PEP 427, PEP 566) in a zip. Building needs Python 3.11+
(``tomllib``); the wheel runs on 3.9+. Archives are reproducible (fixed timestamps, sorted).
"""

import base64
import hashlib
import io
import os
import pathlib
import re
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "zkfence"
EPOCH = (1980, 1, 1, 0, 0, 0)


def _project():
    try:
        import tomllib
    except ImportError:  # Python 3.9 / 3.10
        raise RuntimeError("building the zkfence wheel needs Python 3.11 or newer (tomllib); the wheel itself "
                           "installs on 3.9+") from None
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    version_file = (PACKAGE / "_version.py").read_text("utf-8")
    project["version"] = re.search(r'__version__ = "([^"]+)"', version_file).group(1)
    return project


def _metadata(project):
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + project["name"],
        "Version: " + project["version"],
        "Summary: " + project["description"],
        "Requires-Python: " + project["requires-python"],
        "License: " + project["license"]["text"],
    ]
    lines += ["Classifier: " + c for c in project.get("classifiers", [])]
    lines += ["Project-URL: %s, %s" % kv for kv in project.get("urls", {}).items()]
    lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + (ROOT / project["readme"]).read_text("utf-8")


def _package_files():
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".sql", ".typed"):
            yield path.relative_to(PACKAGE.parent).as_posix(), path.read_bytes()


def _write_wheel(directory, project, files):
    name = "%s-%s" % (project["name"], project["version"])
    dist_info = name + ".dist-info"
    files = list(files) + [
        (dist_info + "/METADATA", _metadata(project).encode("utf-8")),
        (dist_info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: zkfence_build\nRoot-Is-Purelib: true\n"
                               b"Tag: py3-none-any\n"),
    ]
    record = []
    filename = name + "-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        for arcname, data in files:
            whl.writestr(zipfile.ZipInfo(arcname, EPOCH), data, zipfile.ZIP_DEFLATED)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append("%s,sha256=%s,%d" % (arcname, digest, len(data)))
        record.append(dist_info + "/RECORD,,")
        whl.writestr(zipfile.ZipInfo(dist_info + "/RECORD", EPOCH), "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
    return filename


# -- PEP 517 / PEP 660 hooks -------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _project(), _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth file that puts src/ on the path: edits show at once.
    return _write_wheel(wheel_directory, _project(), [("zkfence.pth", (str(PACKAGE.parent) + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    name = "%s-%s" % (project["name"], project["version"])
    filename = name + ".tar.gz"
    members = [("PKG-INFO", _metadata(project).encode("utf-8"))]
    for rel in ["pyproject.toml", "README.md", "build_backend/zkfence_build.py"]:
        members.append((rel, (ROOT / rel).read_bytes()))
    members += [("src/" + arc, data) for arc, data in _package_files()]
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel, data in members:
            info = tarfile.TarInfo(name + "/" + rel)
            info.size, info.mtime, info.mode = len(data), 315532800, 0o644
            tar.addfile(info, io.BytesIO(data))
    return filename
