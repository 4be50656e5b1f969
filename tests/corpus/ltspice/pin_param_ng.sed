1s/ i(vpin) / ix(x1:in) /
