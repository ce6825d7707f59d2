import ModelKit
import ModelKitTesting
import Testing

@Suite struct TestProbeTests {
    @Test func probeWorksAsClosuresOfEveryArity() {
        let probe = TestProbe()
        let zero: @Sendable () -> Void = probe.call
        let one: @Sendable (Int) -> Void = probe.call
        let two: @Sendable (Int, String) -> Void = probe.call
        let three: @Sendable (Int, Int, Int) -> Void = probe.call
        let six: @Sendable (Int, Int, Int, Int, Int, Int) -> Void = probe.call
        zero()
        one(1)
        two(2, "b")
        three(1, 2, 3)
        six(1, 2, 3, 4, 5, 6)
        #expect(probe.callCount == 5)
        #expect(probe.wasCalled())
        #expect(probe.wasCalled(with: 1))
        #expect(probe.wasCalled(with: 2, "b"))
        #expect(probe.wasCalled(with: 1, 2, 3))
        #expect(probe.wasCalled(with: 1, 2, 3, 4, 5, 6))
        #expect(!probe.wasCalled(with: 3))
    }

    @Test func assertedCallIsConsumed() async {
        let onValue = TestProbe("onValue")
        let onPing = TestProbe("onPing")
        let (caller, tester) = Caller(onValue: onValue.call, onPing: onPing.call).andTester()
        tester.install(onValue)
        caller.send(1)
        await tester.assert(onValue.wasCalled(with: 1, "#1"))
        #expect(!onValue.wasCalled(with: 1, "#1"))
        await tester.finish()
    }

    @Test func probeCallWakesAnAssert() async {
        let onValue = TestProbe("onValue")
        let onPing = TestProbe("onPing")
        let (caller, tester) = Caller(onValue: onValue.call, onPing: onPing.call).andTester()
        tester.install(onValue)
        caller.send(7)
        await tester.assert {
            onValue.wasCalled(with: 7, "#7")
        }
        await tester.finish()
    }
}
