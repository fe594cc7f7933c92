"""ADV910–ADV949: torchvision (windows in torchvision versions; `library = "torchvision"`)."""
