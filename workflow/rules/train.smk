# train stage (being written)
