/// A first-in first-out queue of keys in one array: leaving from the front is O(1) amortized, and it allocates
/// only when it grows.
struct KeyQueue<Key: Sendable>: Sendable {
  private var storage: ContiguousArray<Key> = []
  private var head = 0

  var count: Int { storage.count - head }

  mutating func append(_ key: Key) {
    storage.append(key)
  }

  mutating func popFirst() -> Key? {
    guard head < storage.count else { return nil }
    let key = storage[head]
    head += 1
    // Compact once the dead front is half the storage.
    if head >= 32, head * 2 >= storage.count {
      storage.removeFirst(head)
      head = 0
    }
    return key
  }

  /// Drops the keys `shouldRemove` selects (duplicates of forgotten keys): O(n), when it is twice the keys.
  mutating func removeAll(where shouldRemove: (Key) -> Bool) {
    storage.removeFirst(head)
    head = 0
    storage.removeAll(where: shouldRemove)
  }
}
