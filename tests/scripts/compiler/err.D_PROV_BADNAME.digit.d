provider myapp2 {
	probe start(int);
};
