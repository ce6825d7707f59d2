import Testing
import ModelKit

struct CountModel: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    func incrementTapped() { count += 1 }
    static func register(_ r: inout ModelRegistrar<Self>) { r.track("count", \.$count) }
}

@Test func smoke() {
    let model = CountModel().withAnchor()
    model.incrementTapped()
    #expect(model.count == 1)
}
