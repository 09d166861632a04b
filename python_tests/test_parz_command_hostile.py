"""The `parz` command on the damaged files of test_hostile_files.py: `parz verify` names every
chunk that a read must refuse and none of the untouched ones, `parz inspect` and `parz verify`
end with an exit status (never a signal), whatever the bytes."""
import re
import subprocess

import pytest

from test_hostile_files import CHUNK, DATASETS, write_damaged


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_parz_verify_names_the_damaged_chunks(tmp_path, name, parz_tool):
    path = tmp_path / (name + ".h5")
    cases, _ = write_damaged(path, name)
    v = subprocess.run([parz_tool, "verify", "%s:/%s" % (path, name)], capture_output=True,
                       text=True, timeout=600)
    assert v.returncode == 1, (v.returncode, v.stderr[-2000:])
    bad = {int(m) // CHUNK[0] for m in re.findall(r"chunk \[(\d+),0\]: ", v.stdout)}
    problems = []
    for k, (label, _, must_fail) in enumerate(cases):
        if must_fail and 2 * k + 1 not in bad:
            problems.append("chunk %d (%s) not reported" % (2 * k + 1, label))
    problems += ["untouched chunk %d reported" % i for i in sorted(bad) if i % 2 == 0]
    assert not problems, "\n".join(problems[:40])
    for args in (["inspect"], ["inspect", "--summary"]):
        r = subprocess.run([parz_tool] + args + [str(path)], capture_output=True, text=True,
                           timeout=600)
        assert r.returncode in (0, 1), (args, r.returncode, r.stderr[-2000:])
