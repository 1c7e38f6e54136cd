"""Example bank: verified question->SQL pairs with noun-masked embeddings (issue 5)."""
