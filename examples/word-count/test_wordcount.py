import unittest

from wordcount import count_words, most_common


class CountWordsTest(unittest.TestCase):
    def test_one_line(self):
        self.assertEqual(count_words("The cat saw the dog."), {"the": 2, "cat": 1, "saw": 1, "dog": 1})

    def test_words_on_several_lines(self):
        text = "one fish\ntwo fish\n\tred fish\nblue fish\n"
        self.assertEqual(count_words(text), {"one": 1, "two": 1, "red": 1, "blue": 1, "fish": 4})

    def test_most_common(self):
        self.assertEqual(most_common("b a b\nc a b", 2), [("b", 3), ("a", 2)])


if __name__ == "__main__":
    unittest.main()
