import Foundation
@testable import EventLoop
import Testing

@Suite struct IdleWaitTests {
    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

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

    /// A spinning wait that the client keeps waiting past the budget sleeps for the rest:
    /// it uses about the budget's CPU, not the whole wait's, and stops spinning after.
    @Test func aSlowClientIsWaitedForAsleep() throws {
        let pipe = TestPipe()
        var idle = IdleWait(spinNanoseconds: 20_000_000)
        pipe.send()
        var targets = pipe.targets
        _ = idle.wait(&targets)
        pipe.receive()
        #expect(idle.clientIsQuick)

        let sender = Thread { usleep(300_000); pipe.send() }
        sender.start()
        let cpuBefore = Self.threadCPUNanoseconds()
        targets = pipe.targets
        #expect(idle.wait(&targets) == 1)
        let cpu = Self.threadCPUNanoseconds() - cpuBefore
        #expect(cpu < 150_000_000, "spun for \(cpu / 1_000_000) ms of a 300 ms wait")
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
    /// the wait at once.
    @Test func theOwnerPausesBeforeTheLoopSleeps() {
        let pipe = TestPipe()
        var idle = IdleWait(spinNanoseconds: 0)
        var targets = pipe.targets
        var pauses = 0
        #expect(idle.wait(&targets, onPause: { pauses += 1; return true }) == 0)
        #expect(pauses == 1)

        let sender = Thread { usleep(50_000); pipe.send() }
        sender.start()
        targets = pipe.targets
        #expect(idle.wait(&targets, onPause: { pauses += 1; return false }) == 1)
        #expect(pauses == 2)
    }

    /// A client quick enough that the loop never sleeps still lets the owner pause every
    /// `pauseInterval`, and not at every wait; idle work, which comes only before a sleep,
    /// never comes.
    @Test func aLoopKeptBusyStillPausesNowAndThen() {
        let pipe = TestPipe()
        var idle = IdleWait(spinNanoseconds: 1_000_000)
        pipe.send()  // never read: every wait finds input at once
        var pauses = 0
        var idles = 0
        var waits = 0
        let start = DispatchTime.now().uptimeNanoseconds
        while DispatchTime.now().uptimeNanoseconds - start < 5 * IdleWait.pauseInterval {
            var targets = pipe.targets
            _ = idle.wait(&targets, onPause: { pauses += 1; return false }, onIdle: { idles += 1; return (true, nil) })
            waits += 1
        }
        let intervals = Int((DispatchTime.now().uptimeNanoseconds - start) / IdleWait.pauseInterval)
        #expect(pauses >= 2 && pauses <= intervals + 1, "\(pauses) pauses in \(waits) waits, \(intervals) intervals")
        #expect(waits > 100 * pauses)
        #expect(idles == 0)
    }

    /// With nothing to read, idle work comes before the sleep, and work it queued ends the
    /// wait at once; idle work that waits for a quiet time wakes the sleep when it is up.
    @Test func idleWorkComesBeforeTheLoopSleeps() {
        let pipe = TestPipe()
        var idles = 0
        var targets = pipe.targets
        var quiet = IdleWait(spinNanoseconds: 0)
        #expect(quiet.wait(&targets, onIdle: { idles += 1; return (true, nil) }) == 0)
        #expect(idles == 1)
        let sender = Thread { usleep(50_000); pipe.send() }
        sender.start()
        targets = pipe.targets
        #expect(quiet.wait(&targets, onIdle: { idles += 1; return (false, nil) }) == 1)
        #expect(idles == 2)
        pipe.receive()

        // Idle work that waits for a quiet time wakes the sleep when it is up.
        let started = DispatchTime.now().uptimeNanoseconds
        targets = pipe.targets
        #expect(quiet.wait(&targets, onIdle: { (false, started + 30_000_000) }) == 0)
        #expect(DispatchTime.now().uptimeNanoseconds - started >= 30_000_000)
    }
}
