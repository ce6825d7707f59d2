import ModelKit
