import Foundation
import Synchronization
import TestSupport
import Testing

@testable import EventLoop

@Suite struct IdleWaitTests {
    @Test func inputThatIsAlreadyThereMakesTheNextWaitSpin() {
        let pipe = TestPipe()
        var idle = IdleWait(spinNanoseconds: 20_000_000)
        #expect(!idle.clientIsQuick)
        pipe.send()
        var targets = pipe.targets
        #expect(idle.wait(&targets) == 1)
        #expect(targets[0].revents & Int16(POLLIN) != 0)
        #expect(idle.clientIsQuick)
    }

    /// A spinning wait that the client keeps waiting past the budget sleeps for the rest,
    /// and stops spinning after. On a clock that each reading moves on by a millisecond, the
    /// spin of 20 ms ends after some 20 readings; the sleep is seen in the clock's being
    /// asked how long to sleep, and only then does input come.
    @Test func aSlowClientIsWaitedForAsleep() throws {
        let pipe = TestPipe()
        let clock = ManualLoopClock(step: 1_000_000)
        var idle = IdleWait(spinNanoseconds: 20_000_000, clock: clock)
        pipe.send()
        var targets = pipe.targets
        _ = idle.wait(&targets)
        pipe.receive()
        #expect(idle.clientIsQuick)

        let sleptBeforeInput = Mutex(false)
        let sender = Thread {
            sleptBeforeInput.withLock { $0 = waitUntil { clock.sleepsAsked > 0 } }
            pipe.send()
        }
        sender.start()
        targets = pipe.targets
        let before = clock.now()
        // A deadline far off, so that the wait asks the clock how long to sleep.
        #expect(idle.wait(&targets, deadline: before + 3_600_000_000_000) == 1)
        let spun = clock.now() - before
        #expect(sleptBeforeInput.withLock { $0 }, "the wait never went to sleep")
        #expect(spun >= 20_000_000 && spun <= 30_000_000, "spun for \(spun / 1_000_000) ms on a budget of 20")
        #expect(!idle.clientIsQuick)
    }

    @Test func aZeroBudgetNeverSpins() {
        let pipe = TestPipe()
        var idle = IdleWait(spinNanoseconds: 0)
        pipe.send()
        var targets = pipe.targets
        #expect(idle.wait(&targets) == 1)
        #expect(!idle.clientIsQuick)
    }

    /// With nothing to read, the owner's pause comes before the sleep; work it queued ends
    /// the wait at once. Input that comes during the pause is what the sleep then finds.
    @Test func theOwnerPausesBeforeTheLoopSleeps() {
        let pipe = TestPipe()
        var idle = IdleWait(spinNanoseconds: 0)
        var targets = pipe.targets
        var pauses = 0
        #expect(
            idle.wait(
                &targets,
                onPause: {
                    pauses += 1
                    return true
                }) == 0)
        #expect(pauses == 1)

        targets = pipe.targets
        #expect(
            idle.wait(
                &targets,
                onPause: {
                    pauses += 1
                    pipe.send()
                    return false
                }) == 1)
        #expect(pauses == 2)
    }

    /// A client quick enough that the loop never sleeps still lets the owner pause every
    /// `pauseInterval`, and not at every wait; idle work, which comes only before a sleep,
    /// never comes. 200 waits half a millisecond apart: a pause at the first, then one every
    /// 10 ms.
    @Test func aLoopKeptBusyStillPausesNowAndThen() {
        let pipe = TestPipe()
        let clock = ManualLoopClock()
        var idle = IdleWait(spinNanoseconds: 1_000_000, clock: clock)
        pipe.send()  // never read: every wait finds input at once
        var pauses = 0
        var idles = 0
        for _ in 0..<200 {
            clock.move(by: IdleWait.pauseInterval / 20)
            var targets = pipe.targets
            _ = idle.wait(
                &targets,
                onPause: {
                    pauses += 1
                    return false
                },
                onIdle: {
                    idles += 1
                    return (true, nil)
                })
        }
        #expect(pauses == 10)
        #expect(idles == 0)
    }

    /// With nothing to read, idle work comes before the sleep, and work it queued ends the
    /// wait at once; input that comes during the idle work is what the sleep then finds.
    @Test func idleWorkComesBeforeTheLoopSleeps() {
        let pipe = TestPipe()
        var idles = 0
        var targets = pipe.targets
        var quiet = IdleWait(spinNanoseconds: 0)
        #expect(
            quiet.wait(
                &targets,
                onIdle: {
                    idles += 1
                    return (true, nil)
                }) == 0)
        #expect(idles == 1)
        targets = pipe.targets
        #expect(
            quiet.wait(
                &targets,
                onIdle: {
                    idles += 1
                    pipe.send()
                    return (false, nil)
                }) == 1)
        #expect(idles == 2)
    }

    /// Idle work that waits for a quiet time wakes the sleep when it is up. On the real clock:
    /// the sleep until a deadline is what is checked, and only a lower bound, which a loaded
    /// machine cannot break.
    @Test func idleWorkThatWaitsForAQuietTimeWakesTheSleep() {
        let pipe = TestPipe()
        var quiet = IdleWait(spinNanoseconds: 0)
        let clock = MonotonicClock()
        let started = clock.now()
        var targets = pipe.targets
        #expect(quiet.wait(&targets, onIdle: { (false, started + 30_000_000) }) == 0)
        #expect(clock.now() - started >= 30_000_000)
    }
}
