/// A weak reference that can be stored in collections.
struct WeakRef<Object: AnyObject> {
    weak var object: Object?

    init(_ object: Object?) {
        self.object = object
    }
}

extension WeakRef: Sendable where Object: Sendable {}
