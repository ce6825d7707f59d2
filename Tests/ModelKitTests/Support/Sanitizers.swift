import Foundation

/// Whether this test process runs under Thread Sanitizer (`swift test --sanitize=thread`): its
/// runtime is linked into the test binary, which exports its entry points.
///
/// The long single-threaded random walks take fewer steps under it. Instrumented, they ran for
/// minutes, holding both of the cooperative pool's threads (on two cores) while the tests beside
/// them waited on timers and timed out; one thread has nothing to race, and the debug, release and
/// Address Sanitizer runs still walk every step.
let runsUnderThreadSanitizer = exportsSymbol("__tsan_init")

/// Whether this test process runs under Address Sanitizer (`swift test --sanitize=address`), whose
/// instrumented frames take several times the stack (see ``runsUnderThreadSanitizer``).
let runsUnderAddressSanitizer = exportsSymbol("__asan_init")

/// Whether the test program exports `symbol`.
private func exportsSymbol(_ symbol: String) -> Bool {
    guard let program = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(program) }
    return dlsym(program, symbol) != nil
}

/// `steps`, or a quarter of them under Thread Sanitizer (see ``runsUnderThreadSanitizer``).
func walkSteps(_ steps: Int) -> Int {
    runsUnderThreadSanitizer ? steps / 4 : steps
}
