"""README's Python blocks run as written and print what their `# prints:` comments say."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(), flags=re.S | re.M)


def test_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{k + 1}" for k in range(len(BLOCKS))])
def test_a_readme_block_prints_what_it_says(block: str) -> None:
    expected = re.findall(r"# prints: (.+)$", block, flags=re.M)
    result = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.splitlines() == [line.strip() for line in expected]
