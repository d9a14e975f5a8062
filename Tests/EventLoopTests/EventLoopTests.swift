import Foundation
import Synchronization
import TestSupport
import Testing

@testable import EventLoop

@Suite struct EventLoopTests {
    /// Timers fire at their deadlines, as last set, and in their order; a cancelled one never
    /// fires.
    @Test func timersFireByDeadlineAsLastSet() {
        let clock = ManualLoopClock()
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let fired = Mutex<[String]>([])
        loop.execute {
            let timers = ["a", "b", "c", "d"].map { name in (name, loop.makeTimer { fired.withLock { $0.append(name) } }) }
            timers[0].1.schedule(after: 60_000_000)
            timers[1].1.schedule(after: 20_000_000)
            timers[2].1.schedule(after: 40_000_000)
            timers[3].1.schedule(after: 1_000_000)
            timers[0].1.schedule(after: 10_000_000)  // reset: sooner than b now
            timers[2].1.cancel()
        }
        loop.advance(clock, by: 999_999)
        #expect(fired.withLock { $0 } == [])
        loop.advance(clock, by: 1)
        #expect(fired.withLock { $0 } == ["d"])
        loop.advance(clock, by: 9_000_000)
        #expect(fired.withLock { $0 } == ["d", "a"])
        loop.advance(clock, by: 10_000_000)
        #expect(fired.withLock { $0 } == ["d", "a", "b"])
        loop.advance(clock, by: 1_000_000_000)
        #expect(fired.withLock { $0 } == ["d", "a", "b"])
    }

    /// Timers due at once fire together, in deadline order, when the clock jumps past them;
    /// a timer set by another's handler for a time already past fires in the same round.
    @Test func timersPassedInOneJumpFireInOrder() {
        let clock = ManualLoopClock()
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let fired = Mutex<[String]>([])
        loop.execute {
            let late = loop.makeTimer { fired.withLock { $0.append("set by b") } }
            loop.makeTimer {
                fired.withLock { $0.append("b") }
                late.schedule(at: loop.now() - 1)
            }.schedule(after: 20)
            loop.makeTimer { fired.withLock { $0.append("a") } }.schedule(after: 10)
            loop.makeTimer { fired.withLock { $0.append("c") } }.schedule(after: 30)
        }
        loop.advance(clock, by: 25)
        #expect(fired.withLock { $0 } == ["a", "b", "set by b"])
    }

    /// Many timers, set and reset at random: each fires once, in deadline order.
    @Test func theHeapKeepsItsOrder() {
        let loop = EventLoop()
        var heap = TimerHeap()
        var generator = SystemRandomNumberGenerator()
        let timers = (0..<200).map { _ in loop.makeTimer {} }
        for timer in timers { heap.schedule(timer, at: UInt64.random(in: 0..<1000, using: &generator)) }
        for timer in timers.prefix(100) { heap.schedule(timer, at: UInt64.random(in: 0..<1000, using: &generator)) }
        for timer in timers.suffix(50) { heap.remove(timer) }
        var deadlines: [UInt64] = []
        while let first = heap.first {
            deadlines.append(first.deadline)
            heap.remove(first)
        }
        #expect(deadlines.count == 150)
        #expect(deadlines == deadlines.sorted())
        #expect(timers.allSatisfy { !$0.isScheduled })
    }

    /// A timer set as far off as the clock goes waits (it neither traps nor fires), and the
    /// loop keeps serving. On the real clock: its sleep until that deadline is what is checked.
    @Test func aTimerAtTheEndOfTimeNeverFires() {
        let loop = EventLoop.startThread()
        defer { loop.stop(exitCode: 0) }
        let fired = Mutex(0)
        loop.execute {
            loop.makeTimer { fired.withLock { $0 += 1 } }.schedule(after: .max)
            loop.makeTimer { fired.withLock { $0 += 10 } }.schedule(after: 1_000_000)
        }
        // The loop wakes for the near timer by itself, then sleeps until the end of time.
        #expect(waitUntil { fired.withLock { $0 } == 10 })
        loop.settle()
        #expect(fired.withLock { $0 } == 10)
    }

    /// A source whose descriptor its owner closed without cancelling it is dropped, not
    /// handed `POLLNVAL` on every round (which kept the loop busy for ever).
    @Test func aSourceClosedWithoutCancellingIsDropped() {
        let loop = EventLoop.startThread()
        defer { loop.stop(exitCode: 0) }
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[1]) }
        // A number far above those in use, so that no other test's next descriptor takes it
        // once it is closed.
        let watched = fcntl(fds[0], F_DUPFD, 900)
        close(fds[0])
        #expect(watched >= 900)
        let calls = Mutex(0)
        let added = Mutex(false)
        loop.execute {
            _ = loop.addSource(fd: watched, events: Int16(POLLIN)) { _ in calls.withLock { $0 += 1 } }
            close(watched)
            added.withLock { $0 = true }
        }
        #expect(waitUntil { added.withLock { $0 } })
        loop.settle()
        #expect(calls.withLock { $0 } == 0)
    }

    /// A descriptor that becomes ready wakes a sleeping loop, and work handed over from
    /// another thread runs on the loop's own.
    @Test func aSourceAndWorkFromAnotherThreadWakeTheLoop() {
        let loop = EventLoop.startThread()
        defer { loop.stop(exitCode: 0) }
        let pipe = TestPipe()
        let readBytes = Mutex(0)
        let ranOnLoop = Mutex(false)
        loop.execute {
            ranOnLoop.withLock { $0 = loop.isCurrent }
            _ = loop.addSource(fd: pipe.read, events: Int16(POLLIN)) { _ in
                if pipe.receive() { readBytes.withLock { $0 += 1 } }
            }
        }
        #expect(waitUntil { ranOnLoop.withLock { $0 } })
        #expect(!loop.isCurrent)
        pipe.send()
        #expect(waitUntil { readBytes.withLock { $0 } == 1 })
    }

    /// Idle work waits until no descriptor has been ready for its quiet time, or since the
    /// loop started: input every 20 ms keeps a handler of 150 ms from running; once the quiet
    /// time is up, the loop runs the handler by itself, and its steps follow one another
    /// with no time passing.
    @Test func idleWorkWaitsForAQuietTime() {
        let clock = ManualLoopClock()
        let loop = EventLoop.startThread(clock: clock)
        defer { loop.stop(exitCode: 0) }
        let pipe = TestPipe()
        let steps = Mutex<[UInt64]>([])
        loop.execute {
            _ = loop.addSource(fd: pipe.read, events: Int16(POLLIN)) { _ in pipe.receive() }
            _ = loop.addIdleHandler(quietNanoseconds: 150_000_000) {
                // Three steps, each a job of its own.
                let step = steps.withLock { steps in
                    guard steps.count < 3 else { return false }
                    steps.append(loop.now())
                    return true
                }
                if step { loop.execute {} }
                return step
            }
        }
        loop.advance(clock, by: 149_999_999)
        #expect(steps.withLock { $0.isEmpty }, "idle work ran before the loop had been quiet for 150 ms since it started")
        for _ in 0..<20 {
            pipe.send()
            loop.settle()
            loop.advance(clock, by: 20_000_000)
        }
        #expect(steps.withLock { $0.isEmpty }, "idle work ran between inputs 20 ms apart")
        loop.advance(clock, by: 129_999_999)
        #expect(steps.withLock { $0.isEmpty }, "idle work ran before 150 ms had passed since the last input")
        loop.advance(clock, by: 1)
        #expect(waitUntil { steps.withLock { $0.count } >= 3 })
        let quietFrom = clock.now()
        #expect(steps.withLock { $0 } == [quietFrom, quietFrom, quietFrom], "steps waited for time to pass between one another")
    }

    /// The client's exit is seen when it happens (a pidfd), not when a check finds the
    /// process gone: a child that was killed and not yet reaped is a zombie, which
    /// `kill(pid, 0)` still finds.
    @Test func aProcessThatExitsIsSeenWithoutBeingReaped() throws {
        var pid: pid_t = 0
        let arguments = ["/bin/sleep", "60"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, &argv, environ) == 0)
        defer { waitpid(pid, nil, 0) }

        let loop = EventLoop.startThread()
        defer { loop.stop(exitCode: 0) }
        let exited = Mutex(false)
        final class Holder: @unchecked Sendable {  // @unchecked: used on the loop's thread only
            var watcher: ProcessWatcher?
        }
        let holder = Holder()
        let child = pid
        loop.execute { holder.watcher = ProcessWatcher(pid: child, loop: loop) { exited.withLock { $0 = true } } }
        loop.settle()
        #expect(!exited.withLock { $0 })
        kill(child, SIGKILL)
        #expect(waitUntil { exited.withLock { $0 } })
        #expect(kill(child, 0) == 0, "still a zombie: nothing reaped it")
        loop.execute { holder.watcher = nil }
    }

    /// Without a pidfd (here, for want of a descriptor) the client is checked twice a
    /// second: its exit is seen at the next check, well inside the second the protocol
    /// promises. In a process of its own, which runs out of descriptors.
    @Test func withoutAPidfdAnExitIsSeenAtTheNextCheck() async {
        await #expect(processExitsWith: .success) {
            var pid: pid_t = 0
            let arguments = ["/bin/sleep", "60"]
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            guard posix_spawn(&pid, "/bin/sleep", nil, nil, &argv, environ) == 0 else { exit(2) }
            let clock = ManualLoopClock()
            let loop = EventLoop.startThread(clock: clock)
            var limit = rlimit(rlim_cur: 64, rlim_max: 64)
            guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { exit(3) }
            while open("/dev/null", O_RDONLY | O_CLOEXEC) >= 0 {}
            final class Holder: @unchecked Sendable {  // @unchecked: used on the loop's thread only
                var watcher: ProcessWatcher?
            }
            let holder = Holder()
            let exited = Mutex(false)
            let child = pid
            loop.execute { holder.watcher = ProcessWatcher(pid: child, loop: loop) { exited.withLock { $0 = true } } }
            loop.settle()
            // Gone, and reaped: no longer a zombie that `kill(pid, 0)` finds.
            kill(child, SIGKILL)
            waitpid(child, nil, 0)
            loop.advance(clock, by: ProcessWatcher.checkInterval - 1)
            guard !exited.withLock({ $0 }) else { exit(4) }
            loop.advance(clock, by: 1)
            guard exited.withLock({ $0 }) else { exit(5) }
            guard ProcessWatcher.checkInterval <= 500_000_000 else { exit(6) }
        }
    }
}
