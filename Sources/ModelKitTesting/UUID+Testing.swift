import Foundation
import ModelKit

extension UUID {
    /// The n-th UUID of the incrementing generator a Tester gives `node.uuid`:
    /// `UUID(0)` is `00000000-0000-0000-0000-000000000000`, `UUID(1)` ends in `…01`. Any `Int`
    /// makes one: its 64 bits are the last 16 hexadecimal digits (`UUID(-1)` ends in
    /// `ffff-ffffffffffff`).
    ///
    /// ```swift
    /// await tester.assert(form.standup.attendees.map(\.id) == [UUID(0), UUID(1)])
    /// ```
    public init(_ n: Int) {
        self.init(counting: n)
    }
}
