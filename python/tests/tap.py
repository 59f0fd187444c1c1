"""A unittest runner printing TAP (the test driver of `make check` is build-aux/tap-driver.sh).

Skips are visible: a skipped test is "ok N - name # SKIP reason". In sanitizer builds
(configure saw -fsanitize: MSPERF_PY_SANITIZED=yes) the whole file is skipped, because an
ASan-instrumented extension cannot be loaded into the uninstrumented python3."""
import os
import sys
import unittest


class _Result(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = 0

    def _line(self, test, ok, note=""):
        self.n += 1
        name = test.id().split(".", 1)[-1]
        print(f"{'ok' if ok else 'not ok'} {self.n} - {name}{note}", flush=True)

    def addSuccess(self, test):
        self._line(test, True)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(test, True, f" # SKIP {reason}")

    def _fail(self, test, err, kind):
        self._line(test, False)
        text = self._exc_info_to_string(err, test)
        for line in f"{kind}: {text}".splitlines():
            print(f"# {line}")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, err, "FAIL")

    def addError(self, test, err):
        super().addError(test, err)
        self._fail(test, err, "ERROR")

    def addExpectedFailure(self, test, err):
        self._line(test, True, " # TODO expected failure")

    def addUnexpectedSuccess(self, test):
        self._line(test, False, " # unexpected success")


def main(module_name="__main__"):
    if os.environ.get("MSPERF_PY_SANITIZED") == "yes":
        print("1..0 # SKIP sanitizer build: an instrumented extension cannot load into python3")
        return 0
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module_name])
    result = _Result()
    suite.run(result)
    # The plan goes last: a failing setUpClass reports one line for its whole class.
    print(f"1..{result.n}", flush=True)
    return 0 if result.wasSuccessful() else 1
